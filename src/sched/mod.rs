//! The multi-backend scheduler: assigns each node of a graph to a backend, cuts the graph into
//! splits, copies tensors between backends, allocates compute buffers through ggml-alloc and
//! runs the splits (optionally pipelined with events).
//!
//! The decisions are made in safe Rust by [`plan`] over the dense per-tensor arrays of
//! [`table`]; [`reading`] reads a graph's tensors into them, this module materialises the plan
//! (copy tensors, rewired sources, the graph handed to ggml-alloc, its allocation) and [`run`]
//! drives the backends through the splits.
//!
//! Thread safety: as in the reference, a scheduler must not be used from two threads at once.
//!
//! Deliberate differences from the reference, each a fix:
//! - no limit on the inputs of a split or on graph inputs (the reference aborts past 10);
//! - no limit on graph size: the tables grow instead of asserting;
//! - in pipeline-parallel mode, the copy slot is chosen when a graph is allocated, so that
//!   evaluating the same allocated graph again uses fresh inputs (upstream ggml #14855);
//! - `GGML_SCHED_DOT=file` writes the splits as a Graphviz graph.

mod alloc_graph;
mod answers;
mod arena;
mod backends;
mod dot;
mod listing;
mod memo;
mod oracle;
pub mod plan;
mod reading;
#[cfg(sched_debug_realloc)]
mod realloc_check;
mod run;
mod table;
mod tensor_map;

use crate::abi::*;
use crate::base::fallible::{reserve_total, try_collect, try_vec, OutOfMemory};
use crate::base::ggml::*;
use crate::base::report::*;
use crate::handle::{c_str_lossy, Backend, BufferType, CellHandle, Device, Event, Graph, HeldInCell, Tensor};
use alloc::string::String;
use alloc::vec::Vec;
use alloc_graph::AllocGraph;
use answers::Answers;
use arena::TensorArena;
pub use backends::{backend_count, SchedBackends, SchedError};
use core::cell::{Ref, RefMut};
use core::ffi::{c_int, c_void, CStr};
use core::mem::{discriminant, Discriminant};
use memo::PlanMemo;
use oracle::BackendOracle;
use plan::{plan_graph, Oracle, Plan, PlanError, SchedConfig};
#[cfg(sched_debug_realloc)]
use realloc_check::ReallocCheck;
use table::{BuftId, TensorTable, Tid};

/// Most backends a scheduler takes (as in the reference).
pub(crate) const MAX_BACKENDS: usize = 16;
/// Pipeline copies in parallel mode (as in the reference).
pub(crate) const MAX_COPIES: usize = 4;

/// The eval callback: asked (`ask` true) whether it wants to see a node, then shown it.
pub type EvalCallback = unsafe extern "C" fn(t: *mut ggml_tensor, ask: bool, user_data: *mut c_void) -> bool;

/// A scheduler as C holds it: behind the opaque `ggml_backend_sched_t`.
pub type Sched = CellHandle<ggml_backend_sched>;

impl HeldInCell for ggml_backend_sched {
    type Object = Scheduler;
}

/// The scheduler's handle: while it computes, the splits run under a shared borrow, so the
/// getters work from an eval callback or a backend's `graph_compute`; a call that would change
/// or free the scheduler from there is refused.
impl Sched {
    /// The scheduler to read, for one call from C, also from inside its own computation.
    pub fn read<'a>(self, caller: &str) -> Result<Ref<'a, Scheduler>, Refused> {
        match self.try_read() {
            Some(sched) => Ok(sched),
            None => refused!("{caller}: called back from inside a change of this scheduler (a backend's graph_optimize during sched_alloc_graph or sched_reserve)"),
        }
    }

    /// The scheduler to change, for one call from C; never from inside its own work.
    pub fn write<'a>(self, caller: &str) -> Result<RefMut<'a, Scheduler>, Refused> {
        match self.try_write() {
            Some(sched) => Ok(sched),
            None => refused!("{caller}: called back from inside this scheduler's own work (an eval callback or a backend's graph_compute), where only its getters may be called"),
        }
    }

    /// Allocates `graph` if no graph is allocated (else the allocated one is computed again, and
    /// `graph` may be None), then runs the splits, under a shared borrow (see the type's docs).
    pub fn compute_async(self, caller: &'static str, graph: Option<Graph>) -> Result<ggml_status, Refused> {
        if let Err(status) = self.write(caller)?.prepare_compute(caller, graph) {
            return Ok(status);
        }
        Ok(self.read(caller)?.compute_splits(caller))
    }

    /// Releases the scheduler; refused while it is in use (from inside its own work).
    ///
    /// # Safety
    /// It is not used afterwards.
    pub unsafe fn destroy(self, caller: &str) -> Result<(), Refused> {
        // SAFETY: the caller's promise.
        match unsafe { self.release() } {
            Some(_) => Ok(()),
            None => self.write(caller).map(drop),
        }
    }
}

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

/// Why the last graph split cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SplitFailure {
    /// A tensor the plan puts where it cannot run (the reference aborts).
    Unplaceable(PlanError),
    /// Memory for the scheduler's tables ran out; nothing of the graph is assigned.
    OutOfMemory,
}

/// The scheduler (opaque to C).
pub struct Scheduler {
    /// Assignments were cleared since the last split.
    is_reset: bool,
    /// The last reservation failed: ggml-alloc keeps the layout it planned but has no buffer
    /// for it, so the next allocation must reserve again rather than trust that layout.
    needs_reserve: bool,
    /// A graph is allocated and ready to compute.
    is_alloc: bool,

    backends: Vec<Backend>,
    /// The device of each backend.
    devices: Vec<Device>,
    /// Backend names, for the names of copies.
    backend_names: Vec<Vec<u8>>,
    bufts: Vec<BufferType>,
    buft_ids: Vec<BuftId>,
    galloc: ggml_gallocr_t,

    /// Per-tensor decisions, and the tensor of each id.
    table: TensorTable,
    tensors: Vec<Tensor>,
    /// `[tid][backend][copy]` copies made for other backends.
    copies: Vec<Option<Tensor>>,
    /// Counts splits, to refresh each tensor's info once per split.
    epoch: u32,
    /// The [`buffer_changes`](crate::handle::buffer_changes) count when this split began.
    buffer_changes: u64,
    node_tids: Vec<Tid>,
    leaf_tids: Vec<Tid>,
    plan: Plan,
    /// The last plan, reused while the graph's planning inputs stay the same.
    memo: PlanMemo,
    /// Reading the graph found a planning input other than at the last plan (a tensor info,
    /// an id, or an assignment from before the graph).
    plan_inputs_changed: bool,
    /// Ids below this have room in every per-id table (see [`Self::make_room_for_ids`]).
    room_end: usize,
    /// Reading ran out of room and memory for more: what it read is not to be used.
    out_of_room: bool,
    /// The room made for a graph's splits (see [`Self::make_room_for_splits`]).
    split_room: SplitRoom,
    /// Memory ran out in a call that returns nothing (split_graph, reserve_size,
    /// set_tensor_backend), after which the caller may go on from an incomplete split or without
    /// its pin: the next call that can say so reports it, whatever it is asked (a reset does not
    /// forget it).
    unreported_oom: bool,
    /// The backends' answers about each tensor, kept while it stays the same.
    answers: Answers,
    /// The last graph split cannot run as planned: the first tensor the plan puts where it
    /// cannot run. The next call that can say so reports it; the scheduler stays usable.
    plan_failure: Option<SplitFailure>,
    /// The kind of failure last logged and its tensor: a caller that splits the same graph again
    /// (llama.cpp splits, then reserves) reads it once. Not the id: the same tensor may get
    /// another one, when the graph is read again with the copies the last split put in it.
    logged_failure: Option<(Discriminant<PlanError>, Tensor)>,
    buft_support: Vec<(usize, BuftId, bool)>,

    /// The graph handed to ggml-alloc, and each split's nodes as a view of the user's graph.
    alloc_graph: AllocGraph,
    split_graphs: Vec<ggml_cgraph>,
    arena: TensorArena,

    n_copies: usize,
    cur_copy: usize,
    next_copy: usize,
    /// `[backend][copy]`, in pipeline-parallel mode on devices with events.
    events: Vec<[Option<Event>; MAX_COPIES]>,

    callback_eval: Option<EvalCallback>,
    callback_eval_user_data: *mut c_void,

    op_offload: bool,
    debug: i32,
    #[cfg(sched_debug_realloc)]
    realloc_check: ReallocCheck,
    dot_path: Option<Vec<u8>>,
    /// The export the C caller called, for messages from the hot path (which does not pass it
    /// along).
    caller: &'static str,
}

impl Scheduler {
    /// A scheduler over checked backends, with room for graphs of `graph_size` nodes (more
    /// are taken too: the tables grow).
    pub fn new(
        caller: &str,
        spec: SchedBackends,
        graph_size: usize,
        parallel: bool,
        op_offload: bool,
    ) -> Result<Scheduler, OutOfMemory> {
        let SchedBackends { backends, devices, mut bufts } = spec;
        let n_copies = if parallel { MAX_COPIES } else { 1 };
        let mut backend_names = try_vec(backends.len())?;
        for b in &backends {
            // SAFETY: a backend's name is a string that lives as long as the backend.
            let name = unsafe { CStr::from_ptr(b.name(caller)) }.to_bytes();
            backend_names.push(try_collect(name.iter().copied())?);
        }
        let debug = crate::base::os::env_int(env_var!("GGML_SCHED_DEBUG")).map_or(0, |v| v as i32);
        let dot_path = crate::base::os::env(env_var!("GGML_SCHED_DOT")).filter(|p| !p.is_empty());
        let n = backends.len();
        let answers = Answers::new(&backend_names)?;
        let buft_ids = try_collect(bufts.iter().map(|b| b.id()))?;
        let table = TensorTable::new(n, graph_size)?;
        let (tensors, node_tids, leaf_tids) = (try_vec(graph_size)?, try_vec(graph_size)?, try_vec(graph_size)?);
        // Last, what C makes (released by Drop, or here when the allocator cannot be had).
        let n_events = if n_copies > 1 { devices.len() } else { 0 };
        let mut events = try_vec(n_events)?;
        for device in &devices[..n_events] {
            events.push(core::array::from_fn(|_| device.event_new()));
        }
        // SAFETY: an array of live buffer types, as many as backends; ggml-alloc copies it.
        let galloc =
            unsafe { ggml_gallocr_new_n(bufts.as_mut_ptr() as *mut ggml_backend_buffer_type_t, bufts.len() as c_int) };
        if galloc.is_null() {
            for event in events.iter().flatten().flatten() {
                event.free(caller);
            }
            return Err(OutOfMemory);
        }
        let mut sched = Scheduler {
            is_reset: false,
            needs_reserve: false,
            is_alloc: false,
            answers,
            backend_names,
            buft_ids,
            bufts,
            backends,
            devices,
            galloc,
            table,
            tensors,
            copies: Vec::new(),
            epoch: 0,
            buffer_changes: 0,
            node_tids,
            leaf_tids,
            plan: Plan::default(),
            memo: PlanMemo::default(),
            plan_inputs_changed: true,
            room_end: 0,
            out_of_room: false,
            split_room: SplitRoom::default(),
            unreported_oom: false,
            plan_failure: None,
            logged_failure: None,
            buft_support: Vec::new(),
            alloc_graph: AllocGraph::default(),
            split_graphs: Vec::new(),
            arena: TensorArena::default(),
            n_copies,
            cur_copy: 0,
            next_copy: 0,
            events,
            callback_eval: None,
            callback_eval_user_data: core::ptr::null_mut(),
            op_offload,
            debug,
            #[cfg(sched_debug_realloc)]
            realloc_check: ReallocCheck::from_env(),
            dot_path,
            caller: symbol!("ggml_backend_sched_new"),
        };
        sched.reset();
        Ok(sched)
    }

    pub fn n_backends(&self) -> usize {
        self.backends.len()
    }

    pub fn backend(&self, index: usize) -> Option<Backend> {
        self.backends.get(index).copied()
    }

    pub fn backend_index(&self, backend: Backend) -> Option<usize> {
        self.backends.iter().position(|&b| b == backend)
    }

    pub fn n_splits(&self) -> usize {
        self.plan.splits.len()
    }

    pub fn n_copies(&self) -> usize {
        self.n_copies
    }

    /// The size of the compute buffer of the backend at `index`.
    pub fn buffer_size(&self, index: usize) -> usize {
        // SAFETY: the scheduler's allocator, with one of its buffer ids.
        unsafe { ggml_gallocr_get_buffer_size(self.galloc, index as c_int) }
    }

    /// The buffer type of the compute buffer of the backend at `index`.
    #[cfg(api_v2)]
    pub fn buffer_type(&self, index: usize) -> BufferType {
        self.bufts[index]
    }

    pub fn set_eval_callback(&mut self, callback: Option<EvalCallback>, user_data: *mut c_void) {
        self.callback_eval = callback;
        self.callback_eval_user_data = user_data;
    }

    /// Pins `node` to the backend at `index` for the next split (kept until reset). Without
    /// memory to record it, the next call that can say so reports that (see `unreported_oom`).
    pub fn set_tensor_backend(&mut self, caller: &str, node: Tensor, index: usize) {
        if self.make_room_for_ids(1).is_err() {
            log_error!("{caller}: out of memory\n");
            self.unreported_oom = true;
            return;
        }
        let tid = self.tid_of(node);
        self.table.backend[tid as usize] = index as i32;
        self.is_reset = false;
    }

    /// The backend assigned to `node`, if any.
    pub fn tensor_backend(&self, node: Tensor) -> Option<Backend> {
        let tid = self.table.lookup(node.addr())?;
        usize::try_from(self.table.backend[tid as usize]).ok().map(|b| self.backends[b])
    }

    fn copy_slot(&self, tid: Tid, backend: usize, copy: usize) -> usize {
        (tid as usize * self.n_backends() + backend) * self.n_copies + copy
    }

    /// The copy of `tid` made for `backend` in the current pipeline slot.
    fn current_copy(&self, tid: Tid, backend: usize) -> Tensor {
        self.copies[self.copy_slot(tid, backend, self.cur_copy)].expect("the plan made this copy")
    }

    fn clear_tensors(&mut self) {
        self.table.clear();
    }

    /// A copy of `src` with the same layout, named "BACKEND#name#copy".
    fn make_copy(&mut self, src: Tensor, backend: usize, copy: usize) -> Tensor {
        let dst = self.arena.alloc(src.layout_only());
        dst.set_name(&[&self.backend_names[backend], b"#", src.name_bytes(), b"#", &[b'0' + copy as u8]]);
        dst
    }

    /// A view of `input` that keeps it alive until its copy is made.
    fn make_input_dependency(&mut self, input: Tensor) -> Tensor {
        let dst = self.arena.alloc(input.dependent_view());
        dst.set_name(&[input.name_bytes(), b" (view)"]);
        dst
    }

    /// Assigns backends, cuts the graph into splits and builds the graph for ggml-alloc. When
    /// memory runs out, nothing of the graph is assigned and it has no split.
    fn split_graph(&mut self, caller: &'static str, graph: Graph) {
        // The assignments a failed plan left are its own, not the caller's: not kept.
        if self.plan_failure.take().is_some() {
            self.clear_tensors();
        }
        if self.split_graph_in_room(caller, graph).is_err() {
            log_error!("{caller}: out of memory splitting a graph of {} nodes\n", graph.nodes().len());
            self.plan_failure = Some(SplitFailure::OutOfMemory);
            self.memo.forget();
            self.plan.clear();
            self.clear_tensors();
        }
    }

    /// Room for reading and splitting `graph`, taken before it is read, so that the tables do
    /// not grow halfway: its nodes and leafs (a view or source outside it, and what that reads,
    /// take more room as they are met: [`Self::grow_room`]).
    fn make_room(&mut self, graph: Graph) -> Result<(), OutOfMemory> {
        let (n_nodes, n_leafs) = (graph.nodes().len(), graph.leafs().len());
        self.out_of_room = false;
        self.make_room_for_ids(n_nodes + n_leafs)?;
        reserve_total(&mut self.node_tids, n_nodes)?;
        reserve_total(&mut self.leaf_tids, n_leafs)
    }

    /// Room in every per-id table for `n` more ids than are in use (nothing to do, mostly: the
    /// graph read for every token is as large as the one before).
    #[inline]
    fn make_room_for_ids(&mut self, n: usize) -> Result<(), OutOfMemory> {
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
        let copy_slots = total * self.n_backends() * self.n_copies;
        reserve_total(&mut self.copies, copy_slots)?;
        self.answers.make_room(total)?;
        self.room_end = self.room_end.max(total);
        Ok(())
    }

    /// More room, for tensors read outside the graph; without memory for it, reading goes on
    /// without adding ids (a tensor met then is read as id 0) and the split reports it.
    #[cold]
    #[inline(never)]
    fn grow_room(&mut self) {
        let more = self.table.len().max(64);
        if self.make_room_for_ids(more).is_err() {
            self.out_of_room = true;
        }
    }

    /// Room for what the plan makes: the copies and the views that keep their sources alive,
    /// the graph for ggml-alloc and the splits' graphs.
    fn make_room_for_splits(&mut self, graph: Graph) -> Result<(), OutOfMemory> {
        let plan = &self.plan;
        let n_inputs = plan.split_inputs.len();
        let pipelined = if self.n_copies > 1 { self.n_copies * (plan.graph_inputs.len() + n_inputs) } else { 0 };
        let room = SplitRoom {
            tensors: plan.copy_requests.len() * self.n_copies + n_inputs,
            nodes: graph.nodes().len() + 2 * n_inputs,
            leafs: graph.leafs().len() + pipelined,
            splits: plan.splits.len(),
        };
        if room.fits_in(&self.split_room) {
            return Ok(());
        }
        self.arena.make_room(room.tensors)?;
        self.alloc_graph.make_room(room.nodes, room.leafs)?;
        reserve_total(&mut self.split_graphs, room.splits)?;
        self.split_room = room;
        Ok(())
    }

    fn split_graph_in_room(&mut self, caller: &'static str, graph: Graph) -> Result<(), OutOfMemory> {
        self.caller = caller;
        self.is_reset = false;
        self.arena.reset();
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.buffer_changes = crate::handle::buffer_changes();

        // 0.7: the graph is new to backends that cache per graph, as it may have changed.
        #[cfg(graph_uid)]
        graph.set_uid(crate::base::ggml::next_graph_uid());

        // Assignments made before the graph (no reset since the last one, or by hand) are planning
        // inputs too: a plan made over them is neither reused nor remembered.
        let from_clear = self.table.is_empty();
        self.plan_inputs_changed = !from_clear;
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

        let planned_before = !self.plan_inputs_changed
            && self.answers.are_kept()
            && self.memo.is_for(&self.table, &self.node_tids, &self.leaf_tids)
            && self.forgotten_answers_hold();
        self.answers.begin_graph(self.table.len());
        if planned_before {
            self.memo.restore(&mut self.table, &self.plan);
        } else {
            self.plan(caller, from_clear)?;
        }

        self.make_room_for_splits(graph)?;
        self.materialize_copies(graph.nodes());
        if self.debug > 0 {
            self.print_assignments(caller, graph);
        }
        if let Some(path) = self.dot_path.clone() {
            dot::write_splits(self, caller, graph, &path);
        }
        self.build_alloc_graph(graph);
        #[cfg(sched_debug_realloc)]
        self.realloc_check.record(graph, self.plan.splits.len(), self.n_copies);
        Ok(())
    }

    /// Plans the graph read into `node_tids` and `leaf_tids`; remembers the plan if it was made
    /// over a cleared table (`from_clear`: nothing assigned before) and can run.
    fn plan(&mut self, caller: &'static str, from_clear: bool) -> Result<(), OutOfMemory> {
        self.buft_support.clear();
        self.plan.make_room(&self.table, &self.node_tids)?;
        let config = SchedConfig { bufts: &self.buft_ids, n_copies: self.n_copies, op_offload: self.op_offload };
        let mut oracle = BackendOracle {
            caller,
            devices: &self.devices,
            tensors: &self.tensors,
            answers: &mut self.answers,
            buft_support: &mut self.buft_support,
        };
        let planned =
            plan_graph(&mut self.table, &config, &mut oracle, &self.node_tids, &self.leaf_tids, &mut self.plan);
        match planned {
            Ok(()) => self.logged_failure = None,
            Err(error) => {
                self.plan_failure = Some(SplitFailure::Unplaceable(error));
                self.log_plan_failure(caller, error);
            }
        }
        // The memo is a cache: without room for it, the next graph is planned again.
        if !(from_clear
            && self.plan_failure.is_none()
            && self.memo.remember(&self.table, &self.node_tids, &self.leaf_tids))
        {
            self.memo.forget();
        }
        Ok(())
    }

    /// Whether the backends give every answer forgotten while reading the graph again (asked
    /// through the oracle, which keeps the new answers).
    fn forgotten_answers_hold(&mut self) -> bool {
        let forgotten = self.answers.take_forgotten();
        let mut oracle = BackendOracle {
            caller: self.caller,
            devices: &self.devices,
            tensors: &self.tensors,
            answers: &mut self.answers,
            buft_support: &mut self.buft_support,
        };
        let hold = forgotten.iter().all(|f| {
            f.supports_op().is_none_or(|yes| oracle.supports_op(f.backend, f.tid) == yes)
                && f.offload_op().is_none_or(|yes| oracle.offload_op(f.backend, f.tid) == yes)
        });
        self.answers.put_back(forgotten);
        hold
    }

    /// Logs why the graph cannot run (where the reference aborts): the tensor, its op, its
    /// buffer and the backends tried; once for a failure met again in a row.
    #[cold]
    #[inline(never)]
    fn log_plan_failure(&mut self, caller: &str, error: PlanError) {
        let (PlanError::Preallocated(tid) | PlanError::Unassigned(tid)) = error;
        let t = self.tensors[tid as usize];
        let failure = (discriminant(&error), t);
        if self.logged_failure == Some(failure) {
            return;
        }
        self.logged_failure = Some(failure);
        let tried = self.backend_names.iter().map(|name| String::from_utf8_lossy(name)).collect::<Vec<_>>().join(", ");
        match error {
            PlanError::Preallocated(_) => {
                let buffer = t.storage_buffer();
                // SAFETY: a buffer type's name is a string that lives as long as it does.
                let buffer_name = buffer.and_then(|b| b.buft()).map(|buft| unsafe { c_str_lossy(buft.name(caller)) });
                log_error!(
                    "{caller}: pre-allocated tensor ({}) in a buffer ({}) that cannot run the operation ({}); backends tried: {tried}; the graph is not run\n",
                    t.name(),
                    buffer_name.as_deref().unwrap_or("(none)"),
                    t.op_name()
                );
            }
            PlanError::Unassigned(_) => log_error!(
                "{caller}: no backend can run tensor {} (op {}); backends tried: {tried}; the graph is not run\n",
                t.name(),
                t.op_name()
            ),
        }
    }

    /// Creates the copies the plan asked for and points the nodes at them.
    fn materialize_copies(&mut self, nodes: &[Tensor]) {
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
                    copy.keep_allocated();
                }
                let slot = self.copy_slot(request.tid, request.backend, c);
                self.copies[slot] = Some(copy);
            }
        }
        for rewrite in &self.plan.rewrites {
            let copy = self.current_copy(rewrite.src, rewrite.backend as usize);
            nodes[rewrite.node as usize].set_src(rewrite.slot as usize, copy);
        }
    }

    /// Builds the graph for ggml-alloc: before each split its inputs (a dependency on the
    /// source, then the copy), then its nodes; in parallel mode every copy is also a leaf so
    /// that it is allocated first; then the graph's own leafs.
    fn build_alloc_graph(&mut self, graph: Graph) {
        self.split_graphs.clear();
        // Taken out while it is written, so that the scheduler's own methods stay usable.
        let mut alloc_graph = core::mem::take(&mut self.alloc_graph);
        let mut builder = alloc_graph.start();
        for s in 0..self.plan.splits.len() {
            let split = self.plan.splits[s].clone();
            let split_graph = graph.view(split.i_start, split.i_end);
            #[cfg(api_v2)]
            let split_graph = self.optimize_split(split_graph, &split);
            self.split_graphs.push(split_graph);
            for k in split.inputs.clone() {
                let input_tid = self.plan.split_inputs[k];
                let input = self.tensors[input_tid as usize];
                let dependency = self.make_input_dependency(input);
                builder.push_node(dependency, self.table.backend[input_tid as usize]);
                builder.push_node(self.current_copy(input_tid, split.backend), split.backend as c_int);
            }
            let nodes = split.i_start..split.i_end;
            let backends = self.node_tids[nodes.clone()].iter().map(|&tid| self.table.backend[tid as usize]);
            builder.push_nodes(&graph.nodes()[nodes], backends);
        }

        if self.n_copies > 1 {
            for &input_tid in &self.plan.graph_inputs {
                let backend = self.table.backend[input_tid as usize];
                for slot in self.copy_slots(input_tid, backend as usize) {
                    builder.push_leaf(self.copies[slot].expect("the plan made this copy"), backend);
                }
            }
            for split in &self.plan.splits {
                for &input_tid in &self.plan.split_inputs[split.inputs.clone()] {
                    for slot in self.copy_slots(input_tid, split.backend) {
                        builder.push_leaf(self.copies[slot].expect("the plan made this copy"), split.backend as c_int);
                    }
                }
            }
        }
        for (&leaf, &tid) in graph.leafs().iter().zip(&self.leaf_tids) {
            builder.push_leaf(leaf, self.table.backend[tid as usize]);
        }
        builder.finish();
        self.alloc_graph = alloc_graph;
        // 0.7: each split is a new graph to backends that cache per graph.
        #[cfg(graph_uid)]
        for split_graph in &mut self.split_graphs {
            split_graph.uid = crate::base::ggml::next_graph_uid();
        }
    }

    /// Lets the split's backend reorder the split's nodes (in the user's graph, which the view
    /// shares), before ggml-alloc sees them, and follows the new order.
    #[cfg(api_v2)]
    fn optimize_split(&mut self, mut split_graph: ggml_cgraph, split: &plan::Split) -> ggml_cgraph {
        // SAFETY: a view of the user's live graph.
        if unsafe { self.backends[split.backend].graph_optimize(&mut split_graph) } {
            // SAFETY: the view still shares the user's live graph.
            let view = unsafe { Graph::from_raw(&mut split_graph) }.expect("a local is never NULL");
            for (j, &node) in (split.i_start..split.i_end).zip(view.nodes()) {
                self.node_tids[j] = self.refresh(node);
            }
        }
        split_graph
    }

    /// The slots of every pipeline copy of `tid` for `backend`.
    fn copy_slots(&self, tid: Tid, backend: usize) -> core::ops::Range<usize> {
        let first = self.copy_slot(tid, backend, 0);
        first..first + self.n_copies
    }

    /// Allocates the split graph, re-reserving when assignments moved to another buffer type
    /// or the current buffers are too small.
    fn alloc_splits(&mut self) -> bool {
        let changed = self.alloc_graph.moved_buffer_type(|id| self.buft_of(id));
        if self.needs_reserve || changed || !self.galloc_alloc() {
            #[cfg(sched_debug_realloc)]
            self.realloc_check.check(changed, self.alloc_graph.counts());
            // Re-allocation may move split inputs: wait for the backends first (without the
            // scheduler's synchronize, which would change the copy slot).
            for &backend in &self.backends {
                backend.synchronize();
            }
            if !self.reserve() || !self.galloc_alloc() {
                log_error!("{PREFIX}ggml_backend_sched_alloc_graph: failed to allocate graph\n");
                return false;
            }
        }
        true
    }

    fn galloc_alloc(&mut self) -> bool {
        // SAFETY: the scheduler's allocator and its graph over live tensors.
        unsafe { ggml_gallocr_alloc_graph(self.galloc, self.alloc_graph.graph()) }
    }

    /// Sizes ggml-alloc's buffers for the current split graph.
    fn reserve(&mut self) -> bool {
        let (graph, node_ids, leaf_ids) = self.alloc_graph.graph_and_ids();
        // SAFETY: the scheduler's allocator and its graph over live tensors, with an id for every
        // node and leaf.
        let ok = unsafe { ggml_gallocr_reserve_n(self.galloc, graph, node_ids, leaf_ids) };
        self.needs_reserve = !ok;
        ok
    }

    /// The buffer type of a backend id (-1, an unassigned leaf, has none).
    fn buft_of(&self, id: c_int) -> Option<BufferType> {
        usize::try_from(id).ok().and_then(|i| self.bufts.get(i).copied())
    }

    /// Forgets all assignments and the allocated graph.
    pub fn reset(&mut self) {
        if !self.is_reset {
            self.clear_tensors();
            self.is_reset = true;
        }
        self.is_alloc = false;
    }

    /// Waits for every backend.
    pub fn synchronize(&mut self) {
        for &backend in &self.backends {
            backend.synchronize();
        }
        if !self.is_alloc {
            // Without an allocated graph, start again from copy 0 (keeps repeated graphs stable).
            self.next_copy = 0;
        }
    }

    /// Sizes the compute buffers for `graph` (the largest graph to come). False, with a log
    /// line, when a buffer cannot be allocated; the scheduler stays usable.
    pub fn reserve_for(&mut self, caller: &'static str, graph: Graph) -> bool {
        if self.report_earlier_oom(caller) {
            return false;
        }
        // 0.5.1 and 0.5.2 start from a reset scheduler: backends set by hand are forgotten.
        if cfg!(reserve_resets_first) {
            self.reset();
        }
        self.split_graph(caller, graph);
        if self.plan_failure.is_some() {
            self.reset();
            return false;
        }
        self.synchronize();
        let ok = self.reserve();
        if !ok {
            log_error!("{caller}: failed to allocate the compute buffers\n");
        }
        self.reset();
        ok
    }

    /// Assigns backends and splits `graph`, without allocating it.
    #[cfg(api_v2)]
    pub fn split(&mut self, caller: &'static str, graph: Graph) {
        self.split_graph(caller, graph);
        self.unreported_oom |= self.plan_failure == Some(SplitFailure::OutOfMemory);
    }

    /// Whether an earlier call ran out of memory without saying so: then the caller's call fails
    /// with it (once).
    fn report_earlier_oom(&mut self, caller: &str) -> bool {
        if !core::mem::take(&mut self.unreported_oom) {
            return false;
        }
        log_error!("{caller}: memory ran out in an earlier call that returns nothing\n");
        true
    }

    /// Writes the compute buffer size each backend would need for `graph` into `sizes` (one per
    /// backend, in order), without allocating; the assignments are kept as for [`Self::split`].
    #[cfg(sched_reserve_size)]
    pub fn reserve_sizes(&mut self, caller: &'static str, graph: Graph, sizes: &mut [usize]) {
        self.reset();
        self.synchronize();
        self.split_graph(caller, graph);
        if self.plan_failure == Some(SplitFailure::OutOfMemory) {
            // No graph to measure: nothing is assigned.
            sizes.fill(0);
            self.unreported_oom = true;
            return;
        }
        let (graph, node_ids, leaf_ids) = self.alloc_graph.graph_and_ids();
        // SAFETY: the scheduler's allocator and its graph over live tensors, an id for every node
        // and leaf, and room for a size per buffer (one per backend).
        unsafe { ggml_gallocr_reserve_n_size(self.galloc, graph, node_ids, leaf_ids, sizes.as_mut_ptr()) };
        // ggml-alloc now holds this graph's layout but has freed the buffers that were too small
        // for it: the next allocation must reserve again (0.5.5's reference crashes there).
        self.needs_reserve = true;
    }

    /// Assigns, splits and allocates `graph` without computing it. False, with a log line,
    /// when the compute buffers cannot be allocated; the scheduler stays usable.
    pub fn alloc(&mut self, caller: &'static str, graph: Graph) -> bool {
        if self.report_earlier_oom(caller) {
            return false;
        }
        self.cur_copy = self.next_copy;
        self.next_copy = (self.next_copy + 1) % self.n_copies;
        self.split_graph(caller, graph);
        if self.plan_failure.is_some() || !self.alloc_splits() {
            return false;
        }
        self.is_alloc = true;
        true
    }

    /// Allocates `graph` if no graph is allocated (else `graph` may be None: the allocated one
    /// is computed again); the status to return instead of computing when it cannot.
    fn prepare_compute(&mut self, caller: &'static str, graph: Option<Graph>) -> Result<(), ggml_status> {
        if !self.is_reset && !self.is_alloc {
            self.reset();
        }
        if self.is_alloc {
            return Ok(());
        }
        let Some(graph) = graph else {
            return Err(ggml_status::refused(format_args!("{caller}: graph is NULL")));
        };
        if !self.alloc(caller, graph) {
            return Err(match self.plan_failure {
                Some(SplitFailure::Unplaceable(_)) => ggml_status::GGML_STATUS_FAILED,
                Some(SplitFailure::OutOfMemory) | None => ggml_status::GGML_STATUS_ALLOC_FAILED,
            });
        }
        Ok(())
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        for event in self.events.iter().flatten().flatten() {
            event.free(symbol!("ggml_backend_sched_free"));
        }
        // SAFETY: the allocator was created by this scheduler and is freed once.
        unsafe { ggml_gallocr_free(self.galloc) };
    }
}
