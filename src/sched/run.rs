//! Running the splits: each split's inputs copied to its backend, then its nodes computed, with
//! the events of pipeline-parallel mode (and, with an eval callback, in runs the callback asks
//! to see).

use super::{EvalCallback, Scheduler, MAX_COPIES};
use crate::abi::*;
use crate::base::fallible::{try_vec, OutOfMemory};
use crate::handle::{Backend, Device, Event, Graph, Tensor};
use alloc::vec::Vec;

/// Pipeline-parallel mode: each graph input and split input has `n_copies` copies, one per
/// evaluation in flight, and each backend an event per copy that says when it is done with it.
///
/// Invariants: `cur_copy` and `next_copy` are below `n_copies`; `events` is empty with one copy,
/// else has an entry per backend (None where its device has no events).
pub(super) struct Pipeline {
    pub(super) n_copies: usize,
    /// The copy of the graph allocated last.
    pub(super) cur_copy: usize,
    /// The copy the next allocation takes.
    next_copy: usize,
    /// `[backend][copy]`, in pipeline-parallel mode on devices with events.
    events: Vec<[Option<Event>; MAX_COPIES]>,
}

impl Pipeline {
    /// One copy, or `MAX_COPIES` when `parallel`, with an event per copy on each device.
    pub(super) fn new(devices: &[Device], parallel: bool) -> Result<Self, OutOfMemory> {
        let n_copies = if parallel { MAX_COPIES } else { 1 };
        let n_events = if parallel { devices.len() } else { 0 };
        let mut events = try_vec(n_events)?;
        for device in &devices[..n_events] {
            events.push(core::array::from_fn(|_| device.event_new()));
        }
        Ok(Pipeline { n_copies, cur_copy: 0, next_copy: 0, events })
    }

    /// Takes the next copy for a graph being allocated.
    pub(super) fn advance(&mut self) {
        self.cur_copy = self.next_copy;
        self.next_copy = (self.next_copy + 1) % self.n_copies;
    }

    /// Starts again from copy 0 (keeps repeated graphs stable).
    pub(super) fn restart(&mut self) {
        self.next_copy = 0;
    }

    fn event(&self, backend: usize) -> Option<Event> {
        self.events.get(backend).and_then(|e| e[self.cur_copy])
    }

    /// Frees the events.
    pub(super) fn free_events(&self, caller: &str) {
        for event in self.events.iter().flatten().flatten() {
            event.free(caller);
        }
    }
}

impl Scheduler {
    /// Waits until the split's backend no longer uses its inputs' memory: on the host when the
    /// copy is made by the host, on the backend's own queue otherwise.
    fn wait_for_split_backend(&self, caller: &str, backend: Backend, event: Option<Event>, on_host: bool) {
        match event {
            None => backend.synchronize(),
            Some(event) if on_host => event.synchronize(caller),
            Some(event) => backend.event_wait(caller, event),
        }
    }

    /// Copies each split's inputs in and runs it.
    pub(super) fn compute_splits(&self, caller: &str) -> ggml_status {
        let mut prev_backend: Option<usize> = None;
        let plan = &self.planning.plan;
        for (s, split) in plan.splits.iter().enumerate() {
            let split_backend = self.backends.backends[split.backend];
            let event = self.pipeline.event(split.backend);

            // 0.7: ggml-alloc may have given this split memory a split of another backend still
            // uses, and without inputs nothing else waits for that one.
            if cfg!(split_event_per_split) && split.inputs.is_empty() {
                if let Some(prev) = prev_backend.filter(|&prev| prev != split.backend) {
                    self.wait_for_split_backend(caller, self.backends.backends[prev], self.pipeline.event(prev), true);
                }
            }

            for &input_tid in &plan.split_inputs[split.inputs.clone()] {
                let input = self.reading.tensors[input_tid];
                let input_copy = self.made.copy(input_tid, split.backend, self.pipeline.cur_copy);
                if input.is_input() {
                    // User inputs are copied at once, before the user can overwrite them.
                    self.wait_for_split_backend(caller, split_backend, event, true);
                    crate::buffer::tensor_io::copy(caller, input, input_copy);
                } else {
                    self.wait_for_split_backend(caller, split_backend, event, false);
                    let input_backend = self.backends.backends[self.reading.table.backend[input_tid] as usize];
                    // SAFETY: a copy has its original's layout; both are allocated.
                    if !unsafe { split_backend.cpy_tensor_async(input_backend, input, input_copy) } {
                        input_backend.synchronize();
                        self.wait_for_split_backend(caller, split_backend, event, true);
                        crate::buffer::tensor_io::copy(caller, input, input_copy);
                    }
                }
            }

            let mut split_graph = self.made.split_graphs[s];
            let status = match self.callback_eval {
                // SAFETY: a view of the user's graph, allocated by this scheduler.
                None => unsafe { split_backend.graph_compute(caller, &mut split_graph) },
                Some(callback) => self.compute_observed(caller, callback, split_backend, split_graph),
            };
            if status != ggml_status::GGML_STATUS_SUCCESS {
                return status;
            }

            // Before 0.7 only a split with inputs recorded its event.
            let records = cfg!(split_event_per_split) || !split.inputs.is_empty();
            if let Some(event) = event.filter(|_| records) {
                split_backend.event_record(caller, event);
            }
            prev_backend = Some(split.backend);
        }
        ggml_status::GGML_STATUS_SUCCESS
    }

    /// Runs a split in runs of nodes the callback does not want to see, stopping after a node
    /// it wants when it returns false (the remaining splits still run, as in the reference).
    fn compute_observed(
        &self,
        caller: &str,
        callback: EvalCallback,
        backend: Backend,
        mut split_graph: ggml_cgraph,
    ) -> ggml_status {
        let user_data = self.callback_eval_user_data;
        // SAFETY: a view of the user's live graph.
        let split = unsafe { Graph::from_raw(&mut split_graph) }.expect("a local is never NULL");
        let nodes = split.nodes();
        // SAFETY: the callback and its data are the caller's, called with live graph nodes.
        let wants = |t: Tensor, ask: bool| unsafe { callback(t.as_ptr(), ask, user_data) };
        let mut j0 = 0;
        while j0 < nodes.len() {
            let mut j1 = j0;
            let mut need = wants(nodes[j1], true);
            while !need && j1 + 1 < nodes.len() {
                j1 += 1;
                need = wants(nodes[j1], true);
            }
            let mut view = split.view(j0, j1 + 1);
            // SAFETY: a view of the user's graph, allocated by this scheduler.
            let status = unsafe { backend.graph_compute(caller, &mut view) };
            if status != ggml_status::GGML_STATUS_SUCCESS {
                return status;
            }
            backend.synchronize();
            if need && !wants(nodes[j1], false) {
                break;
            }
            j0 = j1 + 1;
        }
        ggml_status::GGML_STATUS_SUCCESS
    }
}
