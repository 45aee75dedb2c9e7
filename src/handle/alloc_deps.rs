//! What backends ask to keep allocated while the scheduler lets them reorder a split (plain ggml
//! 0.3.36's `graph_optimize` params): a backend that runs parts of a graph out of order keeps a
//! tensor allocated until a node where they have joined, through a callback it is given.

use crate::abi::*;
use crate::base::report::log_error;
use crate::handle::Tensor;
use alloc::vec::Vec;
use core::ffi::c_void;

/// A tensor kept allocated until a node is computed.
#[derive(Clone, Copy)]
pub struct KeptUntil {
    pub until: Tensor,
    /// The order it was asked in, among all asked while the graph was reordered.
    asked: u32,
    pub tensor: Tensor,
    /// A node of the graph for ggml-alloc keeps it (see `sched::materialize`).
    pub placed: bool,
}

/// The tensors kept allocated until a node is computed, as the backends asked, each pair once.
#[derive(Default)]
pub struct AllocDeps {
    kept: Vec<KeptUntil>,
    /// A pair could not be recorded (no memory for it): the graph cannot be allocated safely.
    lost: bool,
}

impl AllocDeps {
    /// Forgets the pairs of the graph before.
    pub fn clear(&mut self) {
        self.kept.clear();
        self.lost = false;
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Whether a pair a backend asked for could not be recorded.
    pub fn lost_one(&self) -> bool {
        self.lost
    }

    /// Orders the pairs by their node, in the order asked for each (no allocation).
    pub fn group(&mut self) {
        self.kept.sort_unstable_by_key(|k| (k.until, k.asked));
    }

    /// The tensors kept until `node`, in the order asked (after [`Self::group`]).
    pub fn kept_until(&mut self, node: Tensor) -> &mut [KeptUntil] {
        let start = self.kept.partition_point(|k| k.until < node);
        let end = start + self.kept[start..].partition_point(|k| k.until == node);
        &mut self.kept[start..end]
    }

    /// Every pair, grouped by node after [`Self::group`].
    pub fn all(&mut self) -> &mut [KeptUntil] {
        &mut self.kept
    }

    /// The params for a backend's `graph_optimize`, which call back into these deps; valid while
    /// they are not moved.
    pub(super) fn params(&mut self) -> ggml_backend_graph_optimize_params {
        ggml_backend_graph_optimize_params {
            add_alloc_dep: Some(add_alloc_dep),
            user_data: self as *mut AllocDeps as *mut c_void,
        }
    }

    fn add(&mut self, tensor: Tensor, until: Tensor) {
        if self.kept.iter().any(|k| k.until == until && k.tensor == tensor) {
            return;
        }
        if self.kept.try_reserve(1).is_err() {
            self.lost = true;
            return;
        }
        let asked = self.kept.len() as u32;
        self.kept.push(KeptUntil { until, asked, tensor, placed: false });
    }
}

/// `add_alloc_dep` of the params: keep `tensor` allocated until `until` is computed.
unsafe extern "C" fn add_alloc_dep(user_data: *mut c_void, tensor: *mut ggml_tensor, until: *mut ggml_tensor) {
    // SAFETY: the backend calls back with the params' user data, the scheduler's AllocDeps, during
    // its graph_optimize call, while nothing else uses them; the tensors are the graph's.
    let (deps, tensor, until) =
        unsafe { ((user_data as *mut AllocDeps).as_mut(), Tensor::from_raw(tensor), Tensor::from_raw(until)) };
    match (deps, tensor, until) {
        (Some(deps), Some(tensor), Some(until)) => deps.add(tensor, until),
        _ => log_error!(
            "{PREFIX}ggml_backend_graph_optimize_params.add_alloc_dep: user_data, tensor or until is NULL; ignored\n"
        ),
    }
}
