//! Exports: the scheduler.

use super::{arg, named, ToC};
use crate::abi::*;
use crate::base::fallible::OutOfMemory;
use crate::base::report::{checked, refuse, refused, Refused};
use crate::base::text::Lossy;
use crate::handle::{c_str_lossy, Backend};
use crate::sched::{backend_count, Sched, SchedBackends, SchedError, Scheduler};
use core::ffi::{c_int, c_void};

/// Creates a scheduler over `backends` (highest priority first; the last must be a CPU
/// backend). Returns NULL with a log line for invalid arguments (the reference asserts).
///
/// # Safety
/// `backends` is NULL or holds `n_backends` backends, each NULL or live; `bufts` is NULL or
/// holds `n_backends` buffer types, each NULL (the backend's default) or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_new(
    backends: *mut ggml_backend_t,
    bufts: *mut ggml_backend_buffer_type_t,
    n_backends: c_int,
    graph_size: usize,
    parallel: bool,
    op_offload: bool,
) -> ggml_backend_sched_t {
    let n = match backend_count(n_backends) {
        Ok(_) if backends.is_null() => refuse!("{FN}: {}", SchedError::BackendsNull),
        Ok(n) => n,
        Err(why) => refuse!("{FN}: {why}"),
    };
    let backends = arg!(backends[n], optional).unwrap_or_default();
    let bufts = arg!(bufts[n], optional).unwrap_or_default();
    let spec = match SchedBackends::validate(FN, &backends, &bufts) {
        Ok(spec) => spec,
        Err(why) => refuse!("{FN}: {why}"),
    };
    match Scheduler::new(FN, spec, graph_size, parallel, op_offload).and_then(Sched::new) {
        Ok(sched) => Some(sched).to_c(),
        Err(OutOfMemory) => refuse!("{FN}: out of memory for a scheduler of {graph_size} nodes"),
    }
}

/// NULL is ignored.
///
/// # Safety
/// `sched` is NULL or a live scheduler, not used afterwards.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_free(sched: ggml_backend_sched_t) {
    if let Some(sched) = arg!(sched, optional) {
        // SAFETY: the caller gives the scheduler up.
        checked!(unsafe { sched.destroy(FN) })
    }
}

/// Sizes the compute buffers for `measure_graph` (the largest graph to come). False, with
/// a log line, when the graph cannot be placed on the backends or a buffer cannot be
/// allocated; the scheduler stays usable.
///
/// # Safety
/// `sched` and `measure_graph` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_reserve(
    sched: ggml_backend_sched_t,
    measure_graph: *mut ggml_cgraph,
) -> bool {
    let mut sched = checked!(arg!(sched).write(FN));
    sched.reserve_for(FN, arg!(measure_graph))
}

/// # Safety
/// `sched` is NULL or a live scheduler.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_n_backends(sched: ggml_backend_sched_t) -> c_int {
    checked!(arg!(sched).read(FN)).n_backends() as c_int
}

/// NULL, with a log line, for an index out of range.
///
/// # Safety
/// `sched` is NULL or a live scheduler.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_backend(sched: ggml_backend_sched_t, i: c_int) -> ggml_backend_t {
    let sched = checked!(arg!(sched).read(FN));
    match usize::try_from(i).ok().and_then(|i| sched.backend(i)) {
        Some(backend) => backend.as_ptr(),
        None => refuse!("{FN}: index {i} out of range ({} backends)", sched.n_backends()),
    }
}

/// # Safety
/// `sched` is NULL or a live scheduler.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_n_splits(sched: ggml_backend_sched_t) -> c_int {
    checked!(arg!(sched).read(FN)).n_splits() as c_int
}

/// # Safety
/// `sched` is NULL or a live scheduler.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_n_copies(sched: ggml_backend_sched_t) -> c_int {
    checked!(arg!(sched).read(FN)).n_copies() as c_int
}

/// The index of `backend` in the scheduler, or the refusal naming the caller.
fn index_of(caller: &str, sched: &Scheduler, backend: Option<Backend>) -> Result<usize, Refused> {
    match backend.and_then(|b| sched.backend_index(b)) {
        Some(index) => Ok(index),
        None => {
            // SAFETY: a backend's name is a string that lives as long as the backend.
            let name = backend.map_or(Lossy(b"NULL"), |b| unsafe { c_str_lossy(b.name(caller)) });
            refused!("{caller}: backend {name} is not in the scheduler")
        }
    }
}

/// # Safety
/// `sched` and `backend` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_buffer_size(
    sched: ggml_backend_sched_t,
    backend: ggml_backend_t,
) -> usize {
    let sched = checked!(arg!(sched).read(FN));
    sched.buffer_size(checked!(index_of(FN, &sched, arg!(backend, optional))))
}

/// The buffer type the scheduler allocates `backend`'s compute buffer from.
///
/// # Safety
/// `sched` and `backend` are NULL or live.
#[cfg(api_v2)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_buffer_type(
    sched: ggml_backend_sched_t,
    backend: ggml_backend_t,
) -> ggml_backend_buffer_type_t {
    let sched = checked!(arg!(sched).read(FN));
    sched.buffer_type(checked!(index_of(FN, &sched, arg!(backend, optional)))).as_ptr()
}

/// Writes the compute buffer size each backend would need for `measure_graph` into `sizes`,
/// without allocating. The assignments stay, as after `ggml_backend_sched_split_graph`.
///
/// # Safety
/// `sched` and `measure_graph` are NULL or live; `sizes` is NULL or has room for one size per
/// backend of the scheduler.
#[cfg(sched_reserve_size)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_reserve_size(
    sched: ggml_backend_sched_t,
    measure_graph: *mut ggml_cgraph,
    sizes: *mut usize,
) {
    let (mut sched, measure_graph) = (checked!(arg!(sched).write(FN)), arg!(measure_graph));
    let sizes = arg!(sizes);
    // SAFETY: the caller's promise: room for a size per backend.
    let sizes = unsafe { core::slice::from_raw_parts_mut(sizes.as_ptr(), sched.n_backends()) };
    sched.reserve_sizes(FN, measure_graph, sizes)
}

/// Assigns backends to `graph`'s tensors and splits it, without allocating it
/// (`ggml_backend_sched_get_n_splits` and `get_tensor_backend` then report the result). A graph
/// that cannot be placed on the backends is logged, and the next call that can report it does
/// (`sched_reserve`, `sched_alloc_graph`, `sched_graph_compute`); the getters report the
/// complete split the scheduler made of it (the reference aborts).
///
/// # Safety
/// `sched` and `graph` are NULL or live.
#[cfg(api_v2)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_split_graph(sched: ggml_backend_sched_t, graph: *mut ggml_cgraph) {
    let (mut sched, graph) = (checked!(arg!(sched).write(FN)), arg!(graph));
    sched.split(FN, graph)
}

/// Pins `node` to `backend` for the next split (kept until the scheduler is reset).
///
/// # Safety
/// `sched`, `node` and `backend` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_set_tensor_backend(
    sched: ggml_backend_sched_t,
    node: *mut ggml_tensor,
    backend: ggml_backend_t,
) {
    let (mut sched, node) = (checked!(arg!(sched).write(FN)), arg!(node));
    let index = checked!(index_of(FN, &sched, arg!(backend, optional)));
    sched.set_tensor_backend(FN, node, index)
}

/// The backend assigned to `node`, or NULL when it has none.
///
/// # Safety
/// `sched` is NULL or a live scheduler; `node` is only compared.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_get_tensor_backend(
    sched: ggml_backend_sched_t,
    node: *mut ggml_tensor,
) -> ggml_backend_t {
    let sched = checked!(arg!(sched).read(FN));
    arg!(node, optional).and_then(|node| sched.tensor_backend(node)).to_c()
}

/// Assigns, splits and allocates `graph` without computing it. False, with a log line, when
/// the graph cannot be placed on the backends or the compute buffers cannot be allocated; the
/// scheduler stays usable.
///
/// # Safety
/// `sched` and `graph` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_alloc_graph(sched: ggml_backend_sched_t, graph: *mut ggml_cgraph) -> bool {
    let mut sched = checked!(arg!(sched).write(FN));
    sched.alloc(FN, arg!(graph))
}

/// Allocates `graph` if no graph is allocated, runs the splits and waits for the backends.
/// GGML_STATUS_FAILED, with a log line, for a graph that cannot be placed on the backends;
/// GGML_STATUS_ALLOC_FAILED when the compute buffers cannot be allocated.
///
/// # Safety
/// `sched` and `graph` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_graph_compute(
    sched: ggml_backend_sched_t,
    graph: *mut ggml_cgraph,
) -> ggml_status {
    let sched = arg!(sched);
    let status = checked!(sched.compute_async(FN, arg!(graph, optional)));
    checked!(sched.write(FN)).synchronize();
    status
}

/// Allocates `graph` if no graph is allocated, then starts the splits; fails as
/// `ggml_backend_sched_graph_compute` does.
///
/// # Safety
/// `sched` and `graph` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_graph_compute_async(
    sched: ggml_backend_sched_t,
    graph: *mut ggml_cgraph,
) -> ggml_status {
    checked!(arg!(sched).compute_async(FN, arg!(graph, optional)))
}

/// # Safety
/// `sched` is NULL or a live scheduler.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_synchronize(sched: ggml_backend_sched_t) {
    checked!(arg!(sched).write(FN)).synchronize()
}

/// Forgets all assignments and the allocated graph; tensors allocated by the scheduler
/// must not be used afterwards.
///
/// # Safety
/// `sched` is NULL or a live scheduler.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_reset(sched: ggml_backend_sched_t) {
    checked!(arg!(sched).write(FN)).reset()
}

/// # Safety
/// `sched` is NULL or a live scheduler; `callback` is NULL or a function that takes
/// `user_data`.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_sched_set_eval_callback(
    sched: ggml_backend_sched_t,
    callback: ggml_backend_sched_eval_callback,
    user_data: *mut c_void,
) {
    checked!(arg!(sched).write(FN)).set_eval_callback(callback, user_data)
}
