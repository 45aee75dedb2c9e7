//! Reusing the last plan for a graph planned like it (whisper's decoder rebuilds its graph for
//! every token in the same memory).

use super::plan::Plan;
use super::table::{TensorTable, Tid};
use alloc::vec::Vec;

/// The last plan made, for reuse by a graph whose planning inputs turn out to be unchanged.
///
/// The passes are a deterministic function of their inputs: the node and leaf ids in order, each
/// id's [`TensorInfo`](super::table::TensorInfo), the assignments and copy bits the table starts
/// with, and the oracle's answers. A graph with the same ids in the same order, over a table
/// cleared since (every id unassigned and without copies), whose infos are unchanged and whose
/// oracle gives the answers it gave, is planned exactly as before: the scheduler checks the infos
/// and the answers, this checks the rest and puts the outcome back.
#[derive(Default)]
pub struct PlanMemo {
    /// Whether a plan is remembered.
    valid: bool,
    nodes: Vec<Tid>,
    leafs: Vec<Tid>,
    /// Every id's assignment after planning.
    backend: Vec<i32>,
}

impl PlanMemo {
    /// Remembers the plan just made for `nodes` and `leafs` into `table`; false (nothing
    /// remembered) without room for it.
    pub fn remember(&mut self, table: &TensorTable, nodes: &[Tid], leafs: &[Tid]) -> bool {
        self.valid = false;
        let assigned = &table.backend.0[..table.len()];
        for (kept, new) in [(&mut self.nodes, nodes), (&mut self.leafs, leafs)] {
            kept.clear();
            if kept.try_reserve(new.len()).is_err() {
                return false;
            }
            kept.extend_from_slice(new);
        }
        self.backend.clear();
        if self.backend.try_reserve(assigned.len()).is_err() {
            return false;
        }
        self.backend.extend_from_slice(assigned);
        self.valid = true;
        true
    }

    /// Drops the remembered plan (the last one was made over assignments from before it).
    pub fn forget(&mut self) {
        self.valid = false;
    }

    /// Whether the remembered plan was made for `nodes` and `leafs`, over as many ids as
    /// `table` holds.
    pub fn is_for(&self, table: &TensorTable, nodes: &[Tid], leafs: &[Tid]) -> bool {
        self.valid && self.backend.len() == table.len() && self.nodes == nodes && self.leafs == leafs
    }

    /// Puts the remembered plan's assignments and copy bits back into `table` (cleared since,
    /// see [`Self::is_for`]); `plan` is that plan.
    pub fn restore(&self, table: &mut TensorTable, plan: &Plan) {
        table.backend.0[..self.backend.len()].copy_from_slice(&self.backend);
        for request in &plan.copy_requests {
            table.set_has_copy(request.tid, request.backend);
        }
    }
}
