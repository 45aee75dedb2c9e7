//! The planner's questions answered by the real backends, each question once while its tensor
//! stays the same ([`Answers`]; the passes ask the same questions many times).

use super::answers::Answers;
use super::plan::Oracle;
use super::table::{BuftId, Tid};
use crate::abi::*;
use crate::handle::{BufferType, Device, Tensor};
use alloc::vec::Vec;

/// Answers the planner's questions from the real backends, each question once (see
/// [`Answers`]; the passes ask the same questions many times).
pub(super) struct BackendOracle<'a> {
    pub(super) caller: &'a str,
    /// The device of each backend, in the scheduler's order.
    pub(super) devices: &'a [Device],
    pub(super) tensors: &'a [Tensor],
    pub(super) answers: &'a mut Answers,
    pub(super) buft_support: &'a mut Vec<(usize, BuftId, bool)>,
}

impl Oracle for BackendOracle<'_> {
    fn supports_op(&mut self, backend: usize, node: Tid) -> bool {
        let (caller, devices, tensors) = (self.caller, self.devices, self.tensors);
        self.answers.supports_op(node, backend, || devices[backend].supports_op(caller, tensors[node as usize]))
    }

    fn offload_op(&mut self, backend: usize, node: Tid) -> bool {
        let (devices, tensors) = (self.devices, self.tensors);
        self.answers.offload_op(node, backend, || devices[backend].offload_op(tensors[node as usize]))
    }

    fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool {
        if let Some(&(_, _, yes)) = self.buft_support.iter().find(|&&(b, t, _)| b == backend && t == buft) {
            return yes;
        }
        // SAFETY: a BuftId is the address of a live buffer type of this scheduler's tensors.
        let handle = unsafe { BufferType::from_raw(buft as *mut ggml_backend_buffer_type) };
        let yes = handle.is_some_and(|b| self.devices[backend].supports_buft(self.caller, b));
        // A cache: without room, the question is asked again next time.
        if self.buft_support.try_reserve(1).is_ok() {
            self.buft_support.push((backend, buft, yes));
        }
        yes
    }
}
