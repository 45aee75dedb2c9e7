//! Compile-time layout checks, written once for every family and pointer width (x86-64, aarch64,
//! armv7, i686): offsets in pointer sizes, with the entries a capability inserts counted in. The
//! numbers agree with whisper.rn's headers compiled for each target (ctests/abi/abi_layout.c, and
//! layout-check/, which asserts the same from bindgen's reading of a release's headers).

use super::*;

macro_rules! assert_layout {
    ($t:ty, size $size:expr, align $align:expr $(, $field:ident @ $off:expr)* $(,)?) => {
        const _: () = assert!(core::mem::size_of::<$t>() == $size);
        const _: () = assert!(core::mem::align_of::<$t>() == $align);
        $(const _: () = assert!(core::mem::offset_of!($t, $field) == $off);)*
    };
}

/// Pointers and size_t.
const P: usize = core::mem::size_of::<usize>();
/// int64_t and uint64_t align to 4 on i686, to 8 elsewhere.
const I64: usize = core::mem::align_of::<i64>();
/// The 2d accessors' entries (tensor_2d), after get_tensor and after get_tensor_async.
const T2D: usize = if cfg!(tensor_2d) { 2 } else { 0 };
/// backend_i's graph_optimize, last (api_v2).
const OPTIMIZE: usize = if cfg!(api_v2) { 1 } else { 0 };

assert_layout!(ggml_tensor, size 20 * P + 176, align I64,
    r#type @ 0, buffer @ P, ne @ 2 * P, nb @ 2 * P + 32, op @ 6 * P + 32, op_params @ 6 * P + 36,
    flags @ 6 * P + 100, src @ 6 * P + 104, view_src @ 16 * P + 104, view_offs @ 17 * P + 104,
    data @ 18 * P + 104, name @ 19 * P + 104, extra @ 19 * P + 168, padding @ 20 * P + 168);
assert_layout!(ggml_hash_set, size 3 * P, align P, size @ 0, used @ P, keys @ 2 * P);
const NODES: usize = 12usize.next_multiple_of(P);
const ORDER: usize = NODES + 8 * P;
const UID: usize = (ORDER + 4).next_multiple_of(I64);
const CGRAPH_SIZE: usize = if cfg!(graph_uid) { UID + 8 } else { (ORDER + 4).next_multiple_of(P) };
assert_layout!(ggml_cgraph, size CGRAPH_SIZE, align (if cfg!(graph_uid) { I64 } else { P }),
    size @ 0, n_nodes @ 4, n_leafs @ 8, nodes @ NODES, grads @ NODES + P, grad_accs @ NODES + 2 * P,
    leafs @ NODES + 3 * P, use_counts @ NODES + 4 * P, visited_hash_set @ NODES + 5 * P, order @ ORDER);
#[cfg(graph_uid)]
assert_layout!(ggml_cgraph, size UID + 8, align I64, uid @ UID);
assert_layout!(ggml_init_params, size 3 * P, align P, mem_size @ 0, mem_buffer @ P, no_alloc @ 2 * P);
assert_layout!(ggml_status, size 4, align 4);
assert_layout!(ggml_backend_buffer_usage, size 4, align 4);
assert_layout!(ggml_backend_dev_type, size 4, align 4);

const CAPS_SIZE: usize = if cfg!(mmap_support) { 5 } else { 4 };
assert_layout!(ggml_backend_dev_caps, size CAPS_SIZE, align 1,
    r#async @ 0, host_buffer @ 1, buffer_from_host_ptr @ 2, events @ 3);
#[cfg(mmap_support)]
assert_layout!(ggml_backend_dev_caps, size 5, align 1, mmap_support @ 4);
const CAPS: usize = if cfg!(api_v2) { 6 * P } else { 4 * P + 4 };
assert_layout!(ggml_backend_dev_props, size (CAPS + CAPS_SIZE).next_multiple_of(P), align P,
    name @ 0, description @ P, memory_free @ 2 * P, memory_total @ 3 * P, r#type @ 4 * P, caps @ CAPS);
#[cfg(api_v2)]
assert_layout!(ggml_backend_dev_props, size (CAPS + CAPS_SIZE).next_multiple_of(P), align P, device_id @ 5 * P);
assert_layout!(ggml_backend_feature, size 2 * P, align P, name @ 0, value @ P);
assert_layout!(ggml_backend_graph_copy, size 4 * P, align P,
    buffer @ 0, ctx_allocated @ P, ctx_unallocated @ 2 * P, graph @ 3 * P);

assert_layout!(ggml_backend_buffer_type_i, size 6 * P, align P,
    get_name @ 0, alloc_buffer @ P, get_alignment @ 2 * P, get_max_size @ 3 * P, get_alloc_size @ 4 * P,
    is_host @ 5 * P);
assert_layout!(ggml_backend_buffer_type, size 8 * P, align P, iface @ 0, device @ 6 * P, context @ 7 * P);
const BUFFER_I: usize = (9 + T2D) * P;
assert_layout!(ggml_backend_buffer_i, size BUFFER_I, align P,
    free_buffer @ 0, get_base @ P, init_tensor @ 2 * P, memset_tensor @ 3 * P, set_tensor @ 4 * P,
    get_tensor @ 5 * P, cpy_tensor @ (6 + T2D) * P, clear @ (7 + T2D) * P, reset @ (8 + T2D) * P);
#[cfg(tensor_2d)]
assert_layout!(ggml_backend_buffer_i, size BUFFER_I, align P, set_tensor_2d @ 6 * P, get_tensor_2d @ 7 * P);
assert_layout!(ggml_backend_buffer, size BUFFER_I + 4 * P, align P,
    iface @ 0, buft @ BUFFER_I, context @ BUFFER_I + P, size @ BUFFER_I + 2 * P, usage @ BUFFER_I + 3 * P);
const BACKEND_I: usize = (13 + T2D + OPTIMIZE) * P;
assert_layout!(ggml_backend_i, size BACKEND_I, align P,
    get_name @ 0, free @ P, set_tensor_async @ 2 * P, get_tensor_async @ 3 * P,
    cpy_tensor_async @ (4 + T2D) * P, synchronize @ (5 + T2D) * P, graph_plan_create @ (6 + T2D) * P,
    graph_plan_free @ (7 + T2D) * P, graph_plan_update @ (8 + T2D) * P, graph_plan_compute @ (9 + T2D) * P,
    graph_compute @ (10 + T2D) * P, event_record @ (11 + T2D) * P, event_wait @ (12 + T2D) * P);
#[cfg(tensor_2d)]
assert_layout!(ggml_backend_i, size BACKEND_I, align P, set_tensor_2d_async @ 4 * P, get_tensor_2d_async @ 5 * P);
#[cfg(api_v2)]
assert_layout!(ggml_backend_i, size BACKEND_I, align P, graph_optimize @ (13 + T2D) * P);
assert_layout!(ggml_backend, size BACKEND_I + 3 * P, align P,
    guid @ 0, iface @ P, device @ BACKEND_I + P, context @ BACKEND_I + 2 * P);
assert_layout!(ggml_backend_event, size 2 * P, align P, device @ 0, context @ P);
assert_layout!(ggml_backend_device_i, size 15 * P, align P,
    get_name @ 0, get_description @ P, get_memory @ 2 * P, get_type @ 3 * P, get_props @ 4 * P,
    init_backend @ 5 * P, get_buffer_type @ 6 * P, get_host_buffer_type @ 7 * P, buffer_from_host_ptr @ 8 * P,
    supports_op @ 9 * P, supports_buft @ 10 * P, offload_op @ 11 * P, event_new @ 12 * P, event_free @ 13 * P,
    event_synchronize @ 14 * P);
assert_layout!(ggml_backend_device, size 17 * P, align P, iface @ 0, reg @ 15 * P, context @ 16 * P);
assert_layout!(ggml_backend_reg_i, size 4 * P, align P,
    get_name @ 0, get_device_count @ P, get_device @ 2 * P, get_proc_address @ 3 * P);
assert_layout!(ggml_backend_reg, size 6 * P, align P, api_version @ 0, iface @ P, context @ 5 * P);

/// The split state's nr[16] (meta_nr), between ne and n_segments.
#[cfg(meta)]
const NR: usize = if cfg!(meta_nr) { 4 * 16 } else { 0 };
#[cfg(meta)]
assert_layout!(ggml_backend_meta_split_state, size (I64 + 8 * 256 + NR + 4).next_multiple_of(I64), align I64,
    axis @ 0, ne @ I64, n_segments @ I64 + 8 * 256 + NR);
#[cfg(meta_nr)]
assert_layout!(ggml_backend_meta_split_state, size (I64 + 8 * 256 + NR + 4).next_multiple_of(I64), align I64,
    nr @ I64 + 8 * 256);
