//! Exports: placing tensors, graph copy and compare.

use super::{arg, named};
use crate::abi::*;
use crate::base::report::checked;
#[cfg(compare_test_nodes)]
use crate::base::report::refuse;
use crate::buffer::graph_copy;
use crate::handle::Tensor;
use core::ffi::c_void;

/// Points a view at its source's memory. Returns GGML_STATUS_FAILED with a log line
/// when the tensor is not an unallocated view of an allocated tensor (the reference asserts).
///
/// # Safety
/// `tensor` is NULL or a live tensor.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_view_init(tensor: *mut ggml_tensor) -> ggml_status {
    checked!(graph_copy::view_init(FN, arg!(tensor)))
}

/// Places an unallocated tensor at `addr` inside `buffer`. Returns GGML_STATUS_FAILED
/// with a log line on a bad request (the reference asserts).
///
/// # Safety
/// `buffer` and `tensor` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_alloc(
    buffer: ggml_backend_buffer_t,
    tensor: *mut ggml_tensor,
    addr: *mut c_void,
) -> ggml_status {
    let buffer = arg!(buffer);
    let tensor = arg!(tensor);
    checked!(graph_copy::tensor_alloc(FN, buffer, tensor, addr))
}

/// Copies an allocated graph (its nodes, their sources and data) into a new buffer of
/// `backend`. All fields are NULL (with a log line) when it cannot be done.
///
/// # Safety
/// `backend` and `graph` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_copy(
    backend: ggml_backend_t,
    graph: *mut ggml_cgraph,
) -> ggml_backend_graph_copy {
    let backend = arg!(backend);
    graph_copy::graph_copy(backend, arg!(graph))
}

/// # Safety
/// `copy` was made by `ggml_backend_graph_copy` and is not used afterwards.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_copy_free(copy: ggml_backend_graph_copy) {
    // SAFETY: the caller's promise.
    unsafe { graph_copy::graph_copy_free(copy) }
}

/// Converts the arguments every form of compare_graph_backend takes, in the export (whose `FN`
/// its messages name): the handles, and the caller's callback as a closure; without a callback,
/// the export logs it and returns false.
macro_rules! compare_args {
    ($backend1:ident, $backend2:ident, $graph:ident, $callback:ident, $user_data:ident) => {
        let $backend1 = arg!($backend1);
        let $callback = arg!($callback);
        let ($backend2, $graph) = (arg!($backend2), arg!($graph));
        // SAFETY: the caller's callback, with its data and the live tensors the comparison hands
        // it.
        let $callback = move |i: usize, t1: Tensor, t2: Tensor| unsafe {
            $callback(i as i32, t1.as_ptr(), t2.as_ptr(), $user_data)
        };
    };
}

/// Computes `graph` on `backend1` and a copy of it on `backend2` one node at a time,
/// handing each pair of non-view results to `callback` until it returns false. False when
/// the copy cannot be made or no callback is given. (whisper.rn 0.4.0's five arguments;
/// a 0.4.3 caller's sixth argument is ignored.)
///
/// # Safety
/// The backends and `graph` are NULL or live; `callback` is NULL or a function that takes
/// `user_data`.
#[cfg(not(any(compare_test_node, compare_test_nodes)))]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_compare_graph_backend(
    backend1: ggml_backend_t,
    backend2: ggml_backend_t,
    graph: *mut ggml_cgraph,
    callback: ggml_backend_eval_callback,
    user_data: *mut c_void,
) -> bool {
    compare_args!(backend1, backend2, graph, callback, user_data);
    graph_copy::compare_graph_backend(FN, backend1, backend2, graph, callback)
}

/// Computes `graph` on `backend1` and a copy of it on `backend2`, and hands `callback` pairs
/// of results: without a test node, each non-view node's after it is computed, one at a time,
/// until the callback returns false; otherwise, after computing the whole graph on both, the
/// pair of `test_node`, which must be in the graph. False when the copy cannot be made or no
/// callback is given.
///
/// # Safety
/// The backends and `graph` are NULL or live; `callback` is NULL or a function that takes
/// `user_data`; `test_node` is only compared.
#[cfg(compare_test_node)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_compare_graph_backend(
    backend1: ggml_backend_t,
    backend2: ggml_backend_t,
    graph: *mut ggml_cgraph,
    callback: ggml_backend_eval_callback,
    user_data: *mut c_void,
    test_node: *mut ggml_tensor,
) -> bool {
    compare_args!(backend1, backend2, graph, callback, user_data);
    if test_node.is_null() {
        return graph_copy::compare_graph_backend(FN, backend1, backend2, graph, callback);
    }
    // A graph lists a node once: the test node's pair is handed over once.
    let is_test_node = |t: Tensor| t.as_ptr() == test_node;
    checked!(graph_copy::compare_test_nodes(FN, backend1, backend2, graph, is_test_node, callback))
}

/// Computes `graph` on `backend1` and a copy of it on `backend2`, and hands `callback` pairs
/// of results: with no test nodes, each non-view node's after it is computed, one at a time,
/// until the callback returns false; otherwise, after computing the whole graph on both, the
/// pairs of the nodes listed in `test_nodes` (at least one must be in the graph). False when
/// the copy cannot be made or no callback is given.
///
/// # Safety
/// The backends and `graph` are NULL or live; `callback` is NULL or a function that takes
/// `user_data`; `test_nodes` is NULL or holds `num_test_nodes` tensor pointers (only compared).
#[cfg(compare_test_nodes)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_compare_graph_backend(
    backend1: ggml_backend_t,
    backend2: ggml_backend_t,
    graph: *mut ggml_cgraph,
    callback: ggml_backend_eval_callback,
    user_data: *mut c_void,
    test_nodes: *const *const ggml_tensor,
    num_test_nodes: usize,
) -> bool {
    compare_args!(backend1, backend2, graph, callback, user_data);
    if num_test_nodes == 0 {
        return graph_copy::compare_graph_backend(FN, backend1, backend2, graph, callback);
    }
    let Some(test_nodes) = arg!(test_nodes[num_test_nodes], optional) else { refuse!("{FN}: test_nodes is NULL") };
    let is_test_node = |t: Tensor| test_nodes.contains(&Some(t));
    checked!(graph_copy::compare_test_nodes(FN, backend1, backend2, graph, is_test_node, callback))
}
