//! The planner's questions answered by the real backends, each question once while its tensor
//! stays the same ([`Answers`]; the passes ask the same questions many times).

use super::answers::Answers;
use super::per_id::PerId;
use super::plan::Oracle;
use super::table::{BuftId, Tid};
use crate::abi::*;
use crate::handle::{BufferType, Device, Tensor};

/// Answers the planner's questions from the real backends, each question once (see
/// [`Answers`]; the passes ask the same questions many times).
pub(super) struct BackendOracle<'a> {
    caller: &'a str,
    /// The device of each backend, in the scheduler's order.
    devices: &'a [Device],
    tensors: &'a PerId<Tensor>,
    answers: &'a mut Answers,
}

impl<'a> BackendOracle<'a> {
    pub(super) fn new(
        caller: &'a str,
        devices: &'a [Device],
        tensors: &'a PerId<Tensor>,
        answers: &'a mut Answers,
    ) -> Self {
        BackendOracle { caller, devices, tensors, answers }
    }
}

impl Oracle for BackendOracle<'_> {
    fn supports_op(&mut self, backend: usize, node: Tid) -> bool {
        let (caller, devices, tensors) = (self.caller, self.devices, self.tensors);
        self.answers.supports_op(node, backend, || devices[backend].supports_op(caller, tensors[node]))
    }

    fn offload_op(&mut self, backend: usize, node: Tid) -> bool {
        let (devices, tensors) = (self.devices, self.tensors);
        self.answers.offload_op(node, backend, || devices[backend].offload_op(tensors[node]))
    }

    fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool {
        let (caller, device) = (self.caller, self.devices[backend]);
        self.answers.supports_buft(backend, buft, || {
            // SAFETY: a BuftId is the address of a live buffer type of this scheduler's tensors.
            let handle = unsafe { BufferType::from_raw(buft as *mut ggml_backend_buffer_type) };
            handle.is_some_and(|b| device.supports_buft(caller, b))
        })
    }
}
