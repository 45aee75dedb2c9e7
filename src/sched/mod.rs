//! The multi-backend scheduler: assigns each node of a graph to a backend, cuts the graph into
//! splits, copies tensors between backends, allocates compute buffers through ggml-alloc and
//! runs the splits (optionally pipelined with events).
//!
//! A scheduler is made of parts, each a type with its own file and invariants: [`reading`] reads
//! a graph's tensors into the dense per-tensor arrays of [`table`]; [`planning`] decides over
//! them, in safe Rust by [`plan`], and keeps the last plan ([`memo`]); [`materialize`] makes the
//! plan ggml's (copy tensors, rewired sources, the graph handed to ggml-alloc); [`run`] drives
//! the backends through the splits. This module composes them and allocates through ggml-alloc.
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
mod materialize;
mod memo;
mod oracle;
mod per_id;
pub mod plan;
mod planning;
mod reading;
#[cfg(sched_debug_realloc)]
mod realloc_check;
mod run;
mod table;
mod tensor_map;

use crate::abi::*;
use crate::base::fallible::OutOfMemory;
use crate::base::ggml::*;
use crate::base::report::*;
use crate::handle::{Backend, CellHandle, Graph, HeldInCell, Tensor};
use alloc::vec::Vec;
use answers::Answers;
use backends::BackendSet;
pub use backends::{backend_count, SchedBackends, SchedError};
use core::cell::{Ref, RefMut};
use core::ffi::{c_int, c_void};
use materialize::Materialized;
use plan::SchedConfig;
use planning::{Planning, SplitFailure};
use reading::GraphReading;
#[cfg(sched_debug_realloc)]
use realloc_check::ReallocCheck;
use run::Pipeline;

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

/// The refusals of [`Sched::read`] and [`Sched::write`], out of line: every export inlines those.
#[cold]
#[inline(never)]
fn read_refused(caller: &str) -> Refused {
    Refused::new(format_args!("{caller}: called back from inside a change of this scheduler (a backend's graph_optimize during sched_alloc_graph or sched_reserve)"))
}

#[cold]
#[inline(never)]
fn write_refused(caller: &str) -> Refused {
    Refused::new(format_args!("{caller}: called back from inside this scheduler's own work (an eval callback or a backend's graph_compute), where only its getters may be called"))
}

/// The scheduler's handle: while it computes, the splits run under a shared borrow, so the
/// getters work from an eval callback or a backend's `graph_compute`; a call that would change
/// or free the scheduler from there is refused.
impl Sched {
    /// The scheduler to read, for one call from C, also from inside its own computation.
    pub fn read<'a>(self, caller: &str) -> Result<Ref<'a, Scheduler>, Refused> {
        self.try_read().ok_or_else(|| read_refused(caller))
    }

    /// The scheduler to change, for one call from C; never from inside its own work.
    pub fn write<'a>(self, caller: &str) -> Result<RefMut<'a, Scheduler>, Refused> {
        self.try_write().ok_or_else(|| write_refused(caller))
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

/// The scheduler (opaque to C): the parts it is made of, each with its own invariants, and the
/// state of the calls between them.
///
/// A graph goes through the parts in order: [`GraphReading::read`] gives each tensor an id and
/// its description; [`Planning::plan_read_graph`] assigns backends and cuts splits (or puts the
/// last plan back); [`Materialized`] makes the copies and the graph for ggml-alloc, which this
/// module allocates; [`run`] computes the splits, taking the pipeline's copy.
pub struct Scheduler {
    backends: BackendSet,
    galloc: ggml_gallocr_t,
    reading: GraphReading,
    planning: Planning,
    made: Materialized,
    pipeline: Pipeline,

    /// Assignments were cleared since the last split.
    is_reset: bool,
    /// The last reservation failed: ggml-alloc keeps the layout it planned but has no buffer
    /// for it, so the next allocation must reserve again rather than trust that layout.
    needs_reserve: bool,
    /// A graph is allocated and ready to compute.
    is_alloc: bool,
    /// Memory ran out in a call that returns nothing (split_graph, reserve_size,
    /// set_tensor_backend), after which the caller may go on from an incomplete split or without
    /// its pin: the next call that can say so reports it, whatever it is asked (a reset does not
    /// forget it).
    unreported_oom: bool,

    callback_eval: Option<EvalCallback>,
    callback_eval_user_data: *mut c_void,

    op_offload: bool,
    debug: i32,
    #[cfg(sched_debug_realloc)]
    realloc_check: ReallocCheck,
    dot_path: Option<Vec<u8>>,
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
        let mut backends = BackendSet::new(caller, spec)?;
        let debug = crate::base::os::env_int(env_var!("GGML_SCHED_DEBUG")).map_or(0, |v| v as i32);
        let dot_path = crate::base::os::env(env_var!("GGML_SCHED_DOT")).filter(|p| !p.is_empty());
        let reading = GraphReading::new(backends.len(), graph_size, Answers::new(&backends.names)?)?;
        // Last, what C makes (released by Drop, or here when the allocator cannot be had).
        let pipeline = Pipeline::new(&backends.devices, parallel)?;
        // SAFETY: an array of live buffer types, as many as backends; ggml-alloc copies it.
        let galloc = unsafe {
            ggml_gallocr_new_n(
                backends.bufts.as_mut_ptr() as *mut ggml_backend_buffer_type_t,
                backends.bufts.len() as c_int,
            )
        };
        if galloc.is_null() {
            pipeline.free_events(caller);
            return Err(OutOfMemory);
        }
        let mut sched = Scheduler {
            made: Materialized::new(backends.len(), pipeline.n_copies),
            backends,
            galloc,
            reading,
            planning: Planning::default(),
            pipeline,
            is_reset: false,
            needs_reserve: false,
            is_alloc: false,
            unreported_oom: false,
            callback_eval: None,
            callback_eval_user_data: core::ptr::null_mut(),
            op_offload,
            debug,
            #[cfg(sched_debug_realloc)]
            realloc_check: ReallocCheck::from_env(),
            dot_path,
        };
        sched.reset();
        Ok(sched)
    }

    pub fn n_backends(&self) -> usize {
        self.backends.len()
    }

    pub fn backend(&self, index: usize) -> Option<Backend> {
        self.backends.backends.get(index).copied()
    }

    pub fn backend_index(&self, backend: Backend) -> Option<usize> {
        self.backends.backends.iter().position(|&b| b == backend)
    }

    pub fn n_splits(&self) -> usize {
        self.planning.plan.splits.len()
    }

    pub fn n_copies(&self) -> usize {
        self.pipeline.n_copies
    }

    /// The size of the compute buffer of the backend at `index`.
    pub fn buffer_size(&self, index: usize) -> usize {
        // SAFETY: the scheduler's allocator, with one of its buffer ids.
        unsafe { ggml_gallocr_get_buffer_size(self.galloc, index as c_int) }
    }

    /// The buffer type of the compute buffer of the backend at `index`.
    #[cfg(api_v2)]
    pub fn buffer_type(&self, index: usize) -> crate::handle::BufferType {
        self.backends.bufts[index]
    }

    pub fn set_eval_callback(&mut self, callback: Option<EvalCallback>, user_data: *mut c_void) {
        self.callback_eval = callback;
        self.callback_eval_user_data = user_data;
    }

    /// Pins `node` to the backend at `index` for the next split (kept until reset). Without
    /// memory to record it, the next call that can say so reports that (see `unreported_oom`).
    pub fn set_tensor_backend(&mut self, caller: &str, node: Tensor, index: usize) {
        if self.reading.make_room_for_ids(1).is_err() {
            log_error!("{caller}: out of memory\n");
            self.unreported_oom = true;
            return;
        }
        let tid = self.reading.tid_of(node);
        self.reading.table.backend[tid] = index as i32;
        self.is_reset = false;
    }

    /// The backend assigned to `node`, if any.
    pub fn tensor_backend(&self, node: Tensor) -> Option<Backend> {
        let table = &self.reading.table;
        let tid = table.lookup(node.addr())?;
        usize::try_from(table.backend[tid]).ok().map(|b| self.backends.backends[b])
    }

    /// Assigns backends, cuts the graph into splits and builds the graph for ggml-alloc. When
    /// memory runs out, nothing of the graph is assigned and it has no split.
    fn split_graph(&mut self, caller: &'static str, graph: Graph) {
        // The assignments a failed plan left are its own, not the caller's: not kept.
        if self.planning.failure.take().is_some() {
            self.reading.table.clear();
        }
        if self.split_graph_in_room(caller, graph).is_err() {
            log_error!("{caller}: out of memory splitting a graph of {} nodes\n", graph.nodes().len());
            self.planning.failure = Some(SplitFailure::OutOfMemory);
            self.planning.forget();
            self.reading.table.clear();
        }
    }

    fn split_graph_in_room(&mut self, caller: &'static str, graph: Graph) -> Result<(), OutOfMemory> {
        self.is_reset = false;
        // 0.7: the graph is new to backends that cache per graph, as it may have changed.
        #[cfg(graph_uid)]
        graph.set_uid(crate::base::ggml::next_graph_uid());

        // Assignments made before the graph (no reset since the last one, or by hand) are planning
        // inputs too: a plan made over them is neither reused nor remembered.
        let from_clear = self.reading.table.is_empty();
        self.reading.read(graph)?;
        let config = SchedConfig {
            bufts: &self.backends.buft_ids,
            n_copies: self.pipeline.n_copies,
            op_offload: self.op_offload,
        };
        self.planning.plan_read_graph(caller, &mut self.reading, &self.backends, &config, from_clear)?;

        let (plan, cur_copy) = (&self.planning.plan, self.pipeline.cur_copy);
        self.made.make_copies(plan, &self.reading, &self.backends, graph, cur_copy)?;
        if self.debug > 0 {
            self.print_assignments(graph);
        }
        if let Some(path) = &self.dot_path {
            dot::write_splits(self, graph, path);
        }
        self.made.build_alloc_graph(plan, &mut self.reading, &self.backends, graph, cur_copy)?;
        #[cfg(sched_debug_realloc)]
        self.realloc_check.record(graph, plan.splits.len(), self.pipeline.n_copies);
        Ok(())
    }

    /// Allocates the split graph, re-reserving when assignments moved to another buffer type
    /// or the current buffers are too small.
    fn alloc_splits(&mut self) -> bool {
        let changed = self.made.alloc_graph.moved_buffer_type(|id| self.backends.buft_of(id));
        if self.needs_reserve || changed || !self.galloc_alloc() {
            #[cfg(sched_debug_realloc)]
            self.realloc_check.check(changed, self.made.alloc_graph.counts());
            // Re-allocation may move split inputs: wait for the backends first (without the
            // scheduler's synchronize, which would change the copy slot).
            self.backends.synchronize();
            if !self.reserve() || !self.galloc_alloc() {
                log_error!("{PREFIX}ggml_backend_sched_alloc_graph: failed to allocate graph\n");
                return false;
            }
        }
        true
    }

    fn galloc_alloc(&mut self) -> bool {
        // SAFETY: the scheduler's allocator and its graph over live tensors.
        unsafe { ggml_gallocr_alloc_graph(self.galloc, self.made.alloc_graph.graph()) }
    }

    /// Sizes ggml-alloc's buffers for the current split graph.
    fn reserve(&mut self) -> bool {
        let (graph, node_ids, leaf_ids) = self.made.alloc_graph.graph_and_ids();
        // SAFETY: the scheduler's allocator and its graph over live tensors, with an id for every
        // node and leaf.
        let ok = unsafe { ggml_gallocr_reserve_n(self.galloc, graph, node_ids, leaf_ids) };
        self.needs_reserve = !ok;
        ok
    }

    /// Forgets all assignments and the allocated graph.
    pub fn reset(&mut self) {
        if !self.is_reset {
            self.reading.table.clear();
            self.is_reset = true;
        }
        self.is_alloc = false;
    }

    /// Waits for every backend.
    pub fn synchronize(&mut self) {
        self.backends.synchronize();
        if !self.is_alloc {
            // Without an allocated graph, start again from copy 0 (keeps repeated graphs stable).
            self.pipeline.restart();
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
        if self.planning.failure.is_some() {
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
        self.unreported_oom |= self.planning.failure == Some(SplitFailure::OutOfMemory);
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
        if self.planning.failure == Some(SplitFailure::OutOfMemory) {
            // No graph to measure: nothing is assigned.
            sizes.fill(0);
            self.unreported_oom = true;
            return;
        }
        let (graph, node_ids, leaf_ids) = self.made.alloc_graph.graph_and_ids();
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
        self.pipeline.advance();
        self.split_graph(caller, graph);
        if self.planning.failure.is_some() || !self.alloc_splits() {
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
            return Err(match self.planning.failure {
                Some(SplitFailure::Unplaceable(_)) => ggml_status::GGML_STATUS_FAILED,
                Some(SplitFailure::OutOfMemory) | None => ggml_status::GGML_STATUS_ALLOC_FAILED,
            });
        }
        Ok(())
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.pipeline.free_events(symbol!("ggml_backend_sched_free"));
        // SAFETY: the allocator was created by this scheduler and is freed once.
        unsafe { ggml_gallocr_free(self.galloc) };
    }
}
