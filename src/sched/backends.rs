//! The backends a scheduler is made over, checked as the reference asserts them: between 1 and
//! [`MAX_BACKENDS`], none NULL, the last a CPU backend, each able to use its buffer type; and the
//! set the scheduler keeps of them.

use super::table::BuftId;
use super::MAX_BACKENDS;
use crate::abi::*;
use crate::base::fallible::{try_collect, try_vec, OutOfMemory};
use crate::base::text::Lossy;
use crate::handle::{Backend, BufferType, Device};
use alloc::vec::Vec;
use core::ffi::{c_int, CStr};

/// Why `sched_new` refuses its arguments (the reference asserts).
#[derive(Debug, PartialEq, Eq)]
pub enum SchedError {
    BackendsNull,
    BackendCount(c_int),
    BackendNull(usize),
    NoDevice(usize),
    LastNotCpu,
    BuftUnsupported(usize),
    OutOfMemory,
}

impl core::fmt::Display for SchedError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SchedError::BackendsNull => write!(f, "backends is NULL"),
            SchedError::BackendCount(n) => write!(f, "n_backends is {n}; it must be between 1 and {MAX_BACKENDS}"),
            SchedError::BackendNull(i) => write!(f, "backends[{i}] is NULL"),
            SchedError::NoDevice(i) => write!(f, "backend {i} has no device"),
            SchedError::LastNotCpu => write!(f, "the last backend must be a CPU backend"),
            SchedError::BuftUnsupported(i) => write!(f, "backend {i} does not support its buffer type"),
            SchedError::OutOfMemory => write!(f, "out of memory"),
        }
    }
}

/// The number of backends a scheduler may take, checked.
pub fn backend_count(n_backends: c_int) -> Result<usize, SchedError> {
    match usize::try_from(n_backends) {
        Ok(n) if (1..=MAX_BACKENDS).contains(&n) => Ok(n),
        _ => Err(SchedError::BackendCount(n_backends)),
    }
}

/// Backends, their devices and their buffer types, checked to make a scheduler.
pub struct SchedBackends {
    pub(super) backends: Vec<Backend>,
    pub(super) devices: Vec<Device>,
    pub(super) bufts: Vec<BufferType>,
}

impl SchedBackends {
    /// Checks the backends (highest priority first; the last must be a CPU backend) and picks
    /// each one's buffer type: the one given, or the backend's default.
    pub fn validate(
        caller: &str,
        backends: &[Option<Backend>],
        bufts: &[Option<BufferType>],
    ) -> Result<Self, SchedError> {
        if let Some(i) = backends.iter().position(Option::is_none) {
            return Err(SchedError::BackendNull(i));
        }
        let backends =
            try_collect(backends.iter().map(|b| b.expect("checked above"))).map_err(|_| SchedError::OutOfMemory)?;
        let last = backends.last().ok_or(SchedError::BackendCount(0))?;
        let cpu = ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_CPU;
        if !last.device().is_some_and(|d| d.device_type(caller) == cpu) {
            return Err(SchedError::LastNotCpu);
        }
        let mut devices = try_vec(backends.len()).map_err(|_| SchedError::OutOfMemory)?;
        let mut chosen = try_vec(backends.len()).map_err(|_| SchedError::OutOfMemory)?;
        for (i, &backend) in backends.iter().enumerate() {
            let device = backend.device().ok_or(SchedError::NoDevice(i))?;
            let buft = match bufts.get(i).copied().flatten().or_else(|| device.buffer_type(caller)) {
                Some(buft) if device.supports_buft(caller, buft) => buft,
                _ => return Err(SchedError::BuftUnsupported(i)),
            };
            devices.push(device);
            chosen.push(buft);
        }
        Ok(SchedBackends { backends, devices, bufts: chosen })
    }
}

/// The backends a scheduler runs, fixed when it is made: each one's device, name (for the names
/// of copies and the messages) and compute buffer type, in priority order.
pub(super) struct BackendSet {
    pub(super) backends: Vec<Backend>,
    pub(super) devices: Vec<Device>,
    pub(super) names: Vec<Vec<u8>>,
    pub(super) bufts: Vec<BufferType>,
    /// The buffer types as the planner compares them.
    pub(super) buft_ids: Vec<BuftId>,
}

impl BackendSet {
    pub(super) fn new(caller: &str, spec: SchedBackends) -> Result<Self, OutOfMemory> {
        let SchedBackends { backends, devices, bufts } = spec;
        let mut names = try_vec(backends.len())?;
        for b in &backends {
            // SAFETY: a backend's name is a string that lives as long as the backend.
            let name = unsafe { CStr::from_ptr(b.name(caller)) }.to_bytes();
            names.push(try_collect(name.iter().copied())?);
        }
        let buft_ids = try_collect(bufts.iter().map(|b| b.id()))?;
        Ok(BackendSet { backends, devices, names, bufts, buft_ids })
    }

    pub(super) fn len(&self) -> usize {
        self.backends.len()
    }

    /// The name of the backend at `index`, for messages and listings.
    pub(super) fn name(&self, index: usize) -> Lossy<'_> {
        Lossy(&self.names[index])
    }

    /// The buffer type of a backend id (-1, an unassigned leaf, has none).
    pub(super) fn buft_of(&self, id: c_int) -> Option<BufferType> {
        usize::try_from(id).ok().and_then(|i| self.bufts.get(i).copied())
    }

    /// Waits for every backend.
    pub(super) fn synchronize(&self) {
        for &backend in &self.backends {
            backend.synchronize();
        }
    }
}
