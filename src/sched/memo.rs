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
    /// Remembers the plan just made for `nodes` and `leafs` into `table`.
    pub fn remember(&mut self, table: &TensorTable, nodes: &[Tid], leafs: &[Tid]) {
        self.nodes.clear();
        self.nodes.extend_from_slice(nodes);
        self.leafs.clear();
        self.leafs.extend_from_slice(leafs);
        self.backend.clear();
        self.backend.extend_from_slice(&table.backend[..table.len()]);
        self.valid = true;
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
        table.backend[..self.backend.len()].copy_from_slice(&self.backend);
        for request in &plan.copy_requests {
            table.set_has_copy(request.tid, request.backend);
        }
    }
}
