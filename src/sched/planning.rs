//! What planning decides for the graph read, and what it keeps between graphs: the plan, the
//! memo of the last one, and why the graph cannot run.

use super::backends::BackendSet;
use super::memo::PlanMemo;
use super::oracle::BackendOracle;
use super::plan::{plan_graph, Oracle, Plan, PlanError, SchedConfig};
use super::reading::GraphReading;
use crate::base::fallible::OutOfMemory;
use crate::base::report::*;
use crate::base::text::Lossy;
use crate::handle::{c_str_lossy, Tensor};
use alloc::string::String;
use core::fmt::Write as _;
use core::mem::{discriminant, Discriminant};

/// Why the last graph split cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SplitFailure {
    /// A tensor the plan puts where it cannot run (the reference aborts).
    Unplaceable(PlanError),
    /// Memory for the scheduler's tables ran out; nothing of the graph is assigned.
    OutOfMemory,
}

/// The planning part of a scheduler.
///
/// Invariants: `plan` is the plan of the graph last read (its assignments in the reading's
/// table), or empty after a failure to read; `memo` remembers only a plan made over a cleared
/// table that can run.
#[derive(Default)]
pub(super) struct Planning {
    pub(super) plan: Plan,
    /// The last plan, reused while the graph's planning inputs stay the same.
    memo: PlanMemo,
    /// The last graph split cannot run as planned. The next call that can say so reports it;
    /// the scheduler stays usable.
    pub(super) failure: Option<SplitFailure>,
    /// The kind of failure last logged and its tensor: a caller that splits the same graph again
    /// (llama.cpp splits, then reserves) reads it once. Not the id: the same tensor may get
    /// another one, when the graph is read again with the copies the last split put in it.
    logged_failure: Option<(Discriminant<PlanError>, Tensor)>,
}

impl Planning {
    /// Plans the graph `reading` holds, or puts the last plan back when the graph's planning
    /// inputs are those it was made over. `from_clear`: nothing was assigned before the graph;
    /// a plan made then that can run is remembered.
    pub(super) fn plan_read_graph(
        &mut self,
        caller: &'static str,
        reading: &mut GraphReading,
        backends: &BackendSet,
        config: &SchedConfig,
        from_clear: bool,
    ) -> Result<(), OutOfMemory> {
        let planned_before = !reading.inputs_changed()
            && reading.answers.are_kept()
            && self.memo.is_for(&reading.table, &reading.node_tids, &reading.leaf_tids)
            && forgotten_answers_hold(caller, reading, backends);
        reading.answers.begin_graph(reading.table.len());
        if planned_before {
            self.memo.restore(&mut reading.table, &self.plan);
            return Ok(());
        }
        self.plan.make_room(&reading.table, &reading.node_tids, reading.leaf_tids.len())?;
        let mut oracle = BackendOracle::new(caller, &backends.devices, &reading.tensors, &mut reading.answers);
        let planned =
            plan_graph(&mut reading.table, config, &mut oracle, &reading.node_tids, &reading.leaf_tids, &mut self.plan);
        match planned {
            Ok(()) => self.logged_failure = None,
            Err(error) => {
                self.failure = Some(SplitFailure::Unplaceable(error));
                self.log_failure(caller, reading, backends, error);
            }
        }
        // The memo is a cache: without room for it, the next graph is planned again.
        if !(from_clear
            && self.failure.is_none()
            && self.memo.remember(&reading.table, &reading.node_tids, &reading.leaf_tids))
        {
            self.memo.forget();
        }
        Ok(())
    }

    /// Forgets the plan and the memo (after memory ran out reading a graph).
    pub(super) fn forget(&mut self) {
        self.memo.forget();
        self.plan.clear();
    }

    /// Logs why the graph cannot run (where the reference aborts): the tensor, its op, its
    /// buffer and the backends tried; once for a failure met again in a row.
    #[cold]
    #[inline(never)]
    fn log_failure(&mut self, caller: &str, reading: &GraphReading, backends: &BackendSet, error: PlanError) {
        let (PlanError::Preallocated(tid) | PlanError::Unassigned(tid)) = error;
        let t = reading.tensors[tid];
        let failure = (discriminant(&error), t);
        if self.logged_failure == Some(failure) {
            return;
        }
        self.logged_failure = Some(failure);
        let mut tried = String::new();
        for b in 0..backends.len() {
            let _ = write!(tried, "{}{}", if b == 0 { "" } else { ", " }, backends.name(b));
        }
        match error {
            PlanError::Preallocated(_) => {
                let buffer = t.storage_buffer();
                // SAFETY: a buffer type's name is a string that lives as long as it does.
                let buffer_name = buffer.and_then(|b| b.buft()).map(|buft| unsafe { c_str_lossy(buft.name(caller)) });
                log_error!(
                    "{caller}: pre-allocated tensor ({}) in a buffer ({}) that cannot run the operation ({}); backends tried: {tried}; the graph is not run\n",
                    t.name(),
                    buffer_name.unwrap_or(Lossy(b"(none)")),
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
}

/// Whether the backends give every answer forgotten while reading the graph again (asked
/// through the oracle, which keeps the new answers).
fn forgotten_answers_hold(caller: &str, reading: &mut GraphReading, backends: &BackendSet) -> bool {
    let forgotten = reading.answers.take_forgotten();
    let mut oracle = BackendOracle::new(caller, &backends.devices, &reading.tensors, &mut reading.answers);
    let hold = forgotten.iter().all(|f| {
        f.supports_op().is_none_or(|yes| oracle.supports_op(f.backend, f.tid) == yes)
            && f.offload_op().is_none_or(|yes| oracle.offload_op(f.backend, f.tid) == yes)
    });
    reading.answers.put_back(forgotten);
    hold
}
