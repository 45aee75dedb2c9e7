//! sched_vs_cpu: the scheduler on {TEST, CPU} against a CPU-only scheduler.
//!
//! Each input decodes into a program: a small random graph of F32 element-wise ops that both
//! backends compute (ADD, SUB, MUL, DIV, SCALE, SQR) and views (RESHAPE, VIEW, PERMUTE,
//! TRANSPOSE) over up to 3-d tensors of at most 8x4x3 elements, with graph inputs and weights;
//! and a configuration: which ops the TEST backend (ctests/fixtures/test_backend.c, a non-host
//! device whose memory is only reachable through its buffer interface) supports and wants
//! offloaded, whether it accepts host sources and offers the async interface, where each
//! weight lives (a TEST or a CPU buffer, usage WEIGHTS or ANY), op offloading, pipeline
//! parallelism, the scheduler's graph size hint, a second TEST backend, the scheduler's debug
//! log and Graphviz output, nodes pinned to a backend, an eval callback, a reservation first,
//! and how the graph is evaluated again with new inputs (rebuilt and re-allocated, or not).
//!
//! The decoder only makes graphs a caller may hand a scheduler: ggml accepts them, the CPU
//! backend computes them, and no tensor is in a buffer that none of the backends able to run
//! its op can read (which the scheduler rejects with an abort, as the reference does).
//!
//! The program is built twice: for a scheduler over {TEST, CPU}, and for a scheduler over the
//! CPU backend alone with every weight in a CPU buffer. Every node marked as output must have
//! the same bits in both (any NaN matches any NaN): the ops are element-wise IEEE operations
//! without contraction, which the two backends compute identically.
//!
//! Everything is freed at the end of each input: LeakSanitizer checks the process, and the
//! fixture's counters check that every TEST backend, buffer and event made was freed.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt::Write as _;
use std::sync::Once;

use ::wsp_ggml_backend as lib;
use lib::abi::*;
#[path = "common/ffi.rs"]
mod ffi;
use ffi::*;

mod ops {
    include!(concat!(env!("OUT_DIR"), "/ops.rs"));
}
use ops::*;

// ---------------------------------------------------------------------------------------------
// ops (their numbers: OUT_DIR/ops.rs, from the release's ggml.h)
// ---------------------------------------------------------------------------------------------

/// The ops a TEST op set is drawn from (bit i of a mask = OPS[i]); all of them the fixture can
/// compute (or, for NONE and the views, needs not compute).
const OPS: [ggml_op; 11] = [
    OP_NONE,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_SCALE,
    OP_SQR,
    GGML_OP_RESHAPE,
    GGML_OP_VIEW,
    GGML_OP_PERMUTE,
    GGML_OP_TRANSPOSE,
];

fn op_bit(op: ggml_op) -> u16 {
    1 << OPS.iter().position(|&o| o == op).expect("op in OPS")
}

fn ops_of(mask: u16) -> Vec<ggml_op> {
    OPS.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &op)| op).collect()
}

fn op_name(op: ggml_op) -> String {
    // SAFETY: ggml returns a static string for every op value.
    unsafe { std::ffi::CStr::from_ptr(wsp_ggml_op_name(op)).to_string_lossy().into_owned() }
}

/// One-time setup: ggml must not start gdb on an abort, logs are dropped unless
/// WSP_FUZZ_LOG is set, and the op numbers above must be whisper.rn's.
fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("WSP_GGML_NO_BACKTRACE", "1");
        if std::env::var_os("WSP_FUZZ_LOG").is_none() {
            unsafe extern "C" fn quiet(_: c_int, _: *const c_char, _: *mut c_void) {}
            // SAFETY: the callback ignores its arguments.
            unsafe { wsp_ggml_log_set(Some(quiet), std::ptr::null_mut()) };
        }
        for (op, name) in
            [(OP_ADD, "ADD"), (OP_SUB, "SUB"), (OP_MUL, "MUL"), (OP_DIV, "DIV"), (OP_SQR, "SQR"), (OP_SCALE, "SCALE")]
        {
            assert_eq!(op_name(op), name, "op numbers out of date");
        }
        assert_eq!(op_name(GGML_OP_TRANSPOSE), "TRANSPOSE", "op numbers out of date");
    });
}

// ---------------------------------------------------------------------------------------------
// the program decoded from the input
// ---------------------------------------------------------------------------------------------

/// Where the bytes of a value (or of the tensor it is a view of) live.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Home {
    /// A graph input, allocated by the scheduler.
    Input,
    /// A weight in a TEST buffer (in the graph under test; in a CPU buffer in the reference).
    TestWeight,
    /// A weight in a CPU buffer.
    CpuWeight,
    /// Computed by the graph.
    Computed,
}

#[derive(Clone, Copy, Debug)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
}

/// One step of a program, making one value. Values are numbered: weights first, then steps.
#[derive(Clone, Copy, Debug)]
enum Step {
    Input([i64; 3]),
    Binary(Binary, usize, usize),
    Scale(usize, f32),
    Sqr(usize),
    Reshape(usize, [i64; 3]),
    /// length, byte offset
    View1d(usize, i64, usize),
    /// ne0, ne1, row stride, byte offset
    View2d(usize, [i64; 2], usize, usize),
    Transpose(usize),
    Permute(usize, [c_int; 3]),
}

/// What the decoder knows about a value.
#[derive(Clone, Copy)]
struct Info {
    home: Home,
    op: ggml_op,
    is_view: bool,
    used: bool,
}

struct Program {
    parallel: bool,
    op_offload: bool,
    accept_host_srcs: bool,
    async_iface: bool,
    use_callback: bool,
    reserve_first: bool,
    /// a second TEST backend (same buffer type) before the first
    two_tests: bool,
    /// WSP_GGML_SCHED_DEBUG=2 (assignments logged), WSP_GGML_SCHED_DOT=/dev/null (splits drawn)
    sched_debug: bool,
    sched_dot: bool,
    /// usage ANY instead of WEIGHTS for the TEST and the CPU weight buffer
    usage_any: [bool; 2],
    graph_size: usize,
    n_evals: usize,
    /// bit e: evaluation e (> 0) rebuilds and re-allocates the graph; else evaluates again
    eval_modes: u8,
    callback_pattern: u32,
    seed: u64,
    test_ops: u16,
    offload_ops: u16,
    /// shape, in a TEST buffer
    weights: Vec<([i64; 3], bool)>,
    steps: Vec<Step>,
    info: Vec<Info>,
    outputs: Vec<usize>,
    /// (value, index of the backend in the scheduler)
    pins: Vec<(usize, usize)>,
}

const MAX_NODES: usize = 64;
const MAX_INPUTS: usize = 16;
const GRAPH_SIZE: usize = 256;

fn is_view_op(op: ggml_op) -> bool {
    matches!(op, GGML_OP_RESHAPE | GGML_OP_VIEW | GGML_OP_PERMUTE | GGML_OP_TRANSPOSE)
}

fn new_ctx(n_tensors: usize, graph: bool) -> *mut ggml_context {
    // SAFETY: plain calls into ggml.
    unsafe {
        let graph_mem = if graph { wsp_ggml_graph_overhead_custom(GRAPH_SIZE, false) } else { 0 };
        let ctx = wsp_ggml_init(ggml_init_params {
            mem_size: wsp_ggml_tensor_overhead() * n_tensors + graph_mem,
            mem_buffer: std::ptr::null_mut(),
            no_alloc: true,
        });
        assert!(!ctx.is_null());
        ctx
    }
}

fn set_name(t: *mut ggml_tensor, index: usize) {
    let name = CString::new(format!("v{index}")).unwrap();
    // SAFETY: a live tensor and a NUL-terminated name.
    unsafe { wsp_ggml_set_name(t, name.as_ptr()) };
}

/// Makes the value of `step` in `ctx` from the values made so far.
///
/// # Safety
/// `vals` are live tensors of `ctx` (or weights); the step was validated by the decoder.
unsafe fn apply(ctx: *mut ggml_context, vals: &[*mut ggml_tensor], step: Step) -> *mut ggml_tensor {
    let t = match step {
        Step::Input(ne) => {
            let t = wsp_ggml_new_tensor_3d(ctx, 0, ne[0], ne[1], ne[2]);
            wsp_ggml_set_input(t);
            t
        }
        Step::Binary(op, x, y) => {
            let f = match op {
                Binary::Add => wsp_ggml_add,
                Binary::Sub => wsp_ggml_sub,
                Binary::Mul => wsp_ggml_mul,
                Binary::Div => wsp_ggml_div,
            };
            f(ctx, vals[x], vals[y])
        }
        Step::Scale(x, s) => wsp_ggml_scale(ctx, vals[x], s),
        Step::Sqr(x) => wsp_ggml_sqr(ctx, vals[x]),
        Step::Reshape(x, ne) => wsp_ggml_reshape_3d(ctx, vals[x], ne[0], ne[1], ne[2]),
        Step::View1d(x, len, off) => wsp_ggml_view_1d(ctx, vals[x], len, off),
        Step::View2d(x, ne, nb1, off) => wsp_ggml_view_2d(ctx, vals[x], ne[0], ne[1], nb1, off),
        Step::Transpose(x) => wsp_ggml_transpose(ctx, vals[x]),
        Step::Permute(x, p) => wsp_ggml_permute(ctx, vals[x], p[0], p[1], p[2], 3),
    };
    set_name(t, vals.len());
    t
}

/// Builds the program's graph in a new context over `weights`: (context, graph, values).
///
/// # Safety
/// `weights` are the program's weights, live.
unsafe fn build(
    p: &Program,
    weights: &[*mut ggml_tensor],
) -> (*mut ggml_context, *mut ggml_cgraph, Vec<*mut ggml_tensor>) {
    let ctx = new_ctx(p.steps.len() + 1, true);
    let mut vals = weights.to_vec();
    for &step in &p.steps {
        let t = apply(ctx, &vals, step);
        vals.push(t);
    }
    for &o in &p.outputs {
        wsp_ggml_set_output(vals[o]);
    }
    let graph = wsp_ggml_new_graph_custom(ctx, GRAPH_SIZE, false);
    for (k, step) in p.steps.iter().enumerate() {
        let i = weights.len() + k;
        if !p.info[i].used && !matches!(step, Step::Input(_)) {
            wsp_ggml_build_forward_expand(graph, vals[i]);
        }
    }
    (ctx, graph, vals)
}

/// Whether ggml_scale takes `t` (ggml_is_padded_1d) and the CPU backend computes it
/// (contiguous).
unsafe fn scalable(t: *mut ggml_tensor) -> bool {
    let t = &*t;
    t.nb[0] == 4
        && t.nb[2] == t.nb[1] * t.ne[1] as usize
        && t.nb[3] == t.nb[2] * t.ne[2] as usize
        && wsp_ggml_is_contiguous(t)
}

/// Decodes a program. Graphs are checked while they are decoded by building them in a probe
/// context, so that what ggml and the CPU backend accept is asked of ggml itself.
fn decode(u: &mut Unstructured, desc: &mut String) -> Result<Option<Program>> {
    let flags: u16 = u.arbitrary()?;
    let mut p = Program {
        parallel: flags & 1 != 0,
        op_offload: flags & 2 != 0,
        accept_host_srcs: flags & 4 != 0,
        async_iface: flags & 8 == 0,
        use_callback: flags & 16 != 0,
        reserve_first: flags & 32 != 0,
        two_tests: flags & 512 != 0,
        sched_debug: flags & 1024 != 0,
        sched_dot: flags & 2048 != 0,
        usage_any: [flags & 64 != 0, flags & 128 != 0],
        graph_size: 0,
        n_evals: 0,
        eval_modes: 0,
        callback_pattern: 0,
        seed: 0,
        test_ops: u.arbitrary::<u16>()? & ((1 << OPS.len()) - 1),
        offload_ops: u.arbitrary::<u16>()? & ((1 << OPS.len()) - 1),
        weights: Vec::new(),
        steps: Vec::new(),
        info: Vec::new(),
        outputs: Vec::new(),
        pins: Vec::new(),
    };
    let pin_nodes = flags & 256 != 0;
    p.graph_size = [1usize, 8, 64, GRAPH_SIZE][u.choose_index(4)?];
    p.n_evals = u.int_in_range(1..=3u8)? as usize;
    p.eval_modes = u.arbitrary()?;
    p.callback_pattern = u.arbitrary()?;
    p.seed = u.arbitrary()?;
    let base = [u.int_in_range(1..=8i64)?, u.int_in_range(1..=4i64)?, u.int_in_range(1..=3i64)?];
    let shape = |u: &mut Unstructured, like: [i64; 3]| -> Result<[i64; 3]> {
        let m: u8 = u.arbitrary()?;
        Ok([0, 1, 2].map(|i| if m & (1 << i) != 0 { 1 } else { like[i] }))
    };
    let supports = |p: &Program, op| p.test_ops & op_bit(op) != 0;

    // SAFETY: the probe context and its tensors live until the end of this block.
    unsafe {
        let probe = new_ctx(MAX_NODES + MAX_INPUTS + 8, false);
        let mut vals: Vec<*mut ggml_tensor> = Vec::new();
        let n_weights = u.int_in_range(0..=6usize)?;
        for _ in 0..n_weights {
            // the TEST backend holds its weights only if it supports NONE (a caller's contract,
            // checked by the scheduler with an abort)
            let on_test = u.arbitrary::<bool>()? && supports(&p, OP_NONE);
            let ne = shape(u, base)?;
            p.weights.push((ne, on_test));
            let home = if on_test { Home::TestWeight } else { Home::CpuWeight };
            writeln!(desc, "v{} = weight {ne:?} {home:?}", vals.len()).unwrap();
            let t = wsp_ggml_new_tensor_3d(probe, 0, ne[0], ne[1], ne[2]);
            vals.push(t);
            p.info.push(Info { home, op: OP_NONE, is_view: false, used: false });
        }
        let n_inputs = u.int_in_range(1..=3usize)?;
        let push = |p: &mut Program, vals: &mut Vec<*mut ggml_tensor>, step: Step, home: Home, desc: &mut String| {
            let t = apply(probe, vals, step);
            let op = (*t).op;
            writeln!(desc, "v{} = {step:?} -> {:?} {}", vals.len(), (*t).ne, op_name(op)).unwrap();
            vals.push(t);
            p.steps.push(step);
            p.info.push(Info { home, op, is_view: is_view_op(op), used: false });
            vals.len() - 1
        };
        let mut n_inputs_made = 0;
        for _ in 0..n_inputs {
            let ne = shape(u, base)?;
            push(&mut p, &mut vals, Step::Input(ne), Home::Input, desc);
            n_inputs_made += 1;
        }

        let mut n_nodes = 0;
        while n_nodes < MAX_NODES && !u.is_empty() {
            let kind = u.int_in_range(0..=9u8)?;
            let x = u.choose_index(vals.len())?;
            let xt = &*vals[x];
            let xi = p.info[x];
            let direct_test_weight = |i: &Info| i.home == Home::TestWeight && !i.is_view;
            let step = match kind {
                // x op y, y broadcast to x; the CPU backend wants x contiguous in dim 0, and y
                // too unless it has x's shape
                0..=3 => {
                    if xt.nb[0] != 4 {
                        continue;
                    }
                    let fits = |i: usize| {
                        let y = vals[i];
                        wsp_ggml_can_repeat(y, vals[x]) && ((*y).nb[0] == 4 || wsp_ggml_are_same_shape(y, vals[x]))
                    };
                    let candidates: Vec<usize> = (0..vals.len()).filter(|&i| fits(i)).collect();
                    let fresh = candidates.is_empty() || u.ratio(1, 5)?;
                    let y = if fresh {
                        if n_inputs_made == MAX_INPUTS {
                            continue;
                        }
                        let ne = shape(u, [xt.ne[0], xt.ne[1], xt.ne[2]])?;
                        n_inputs_made += 1;
                        push(&mut p, &mut vals, Step::Input(ne), Home::Input, desc)
                    } else {
                        candidates[u.choose_index(candidates.len())?]
                    };
                    let (op, code) = match u.int_in_range(0..=6u8)? {
                        0 | 1 => (Binary::Add, OP_ADD),
                        2 | 3 => (Binary::Mul, OP_MUL),
                        4 | 5 => (Binary::Sub, OP_SUB),
                        _ => (Binary::Div, OP_DIV),
                    };
                    // A node reading a weight in a TEST buffer can only run on TEST (the CPU
                    // backend refuses non-host sources): TEST must support it, and its other
                    // source must not be in a CPU buffer unless TEST accepts host sources.
                    let (xi, yi) = (p.info[x], p.info[y]);
                    if direct_test_weight(&xi) || direct_test_weight(&yi) {
                        let host = |i: &Info| i.home == Home::CpuWeight;
                        if !supports(&p, code) || (!p.accept_host_srcs && (host(&xi) || host(&yi))) {
                            continue;
                        }
                    }
                    p.info[y].used = true;
                    Step::Binary(op, x, y)
                }
                4 if scalable(vals[x]) => {
                    if direct_test_weight(&xi) && !supports(&p, OP_SCALE) {
                        continue;
                    }
                    Step::Scale(x, (u.int_in_range(-8..=8i8)? as f32) / 4.0)
                }
                5 if xt.nb[0] == 4 && wsp_ggml_is_contiguous_1(vals[x]) => {
                    if direct_test_weight(&xi) && !supports(&p, OP_SQR) {
                        continue;
                    }
                    Step::Sqr(x)
                }
                6..=9 => {
                    // a view of a TEST weight is pre-allocated in the TEST buffer: TEST must
                    // support the view op (a caller's contract, as above)
                    let op = [GGML_OP_RESHAPE, GGML_OP_VIEW, GGML_OP_TRANSPOSE, GGML_OP_PERMUTE][kind as usize - 6];
                    if xi.home == Home::TestWeight && !supports(&p, op) {
                        continue;
                    }
                    let contiguous = wsp_ggml_is_contiguous(vals[x]);
                    match kind {
                        6 if contiguous => {
                            // a random factorisation of the element count
                            let n = wsp_ggml_nelements(vals[x]);
                            let divisors = |n: i64| (1..=n).filter(|d| n % d == 0).collect::<Vec<_>>();
                            let d0s = divisors(n);
                            let d0 = d0s[u.choose_index(d0s.len())?];
                            let d1s = divisors(n / d0);
                            let d1 = d1s[u.choose_index(d1s.len())?];
                            Step::Reshape(x, [d0, d1, n / d0 / d1])
                        }
                        7 if contiguous => {
                            let n = wsp_ggml_nelements(vals[x]);
                            if u.arbitrary::<bool>()? {
                                let len = u.int_in_range(1..=n)?;
                                Step::View1d(x, len, u.int_in_range(0..=n - len)? as usize * 4)
                            } else {
                                let rows = n / xt.ne[0];
                                let ne0 = u.int_in_range(1..=xt.ne[0])?;
                                let ne1 = u.int_in_range(1..=rows)?;
                                let col = u.int_in_range(0..=xt.ne[0] - ne0)? as usize;
                                let row = u.int_in_range(0..=rows - ne1)? as usize;
                                // contiguous: laid out densely (the strides of dims of size 1 are
                                // arbitrary, so use none of them)
                                let nb1 = xt.ne[0] as usize * 4;
                                Step::View2d(x, [ne0, ne1], nb1, row * nb1 + col * 4)
                            }
                        }
                        8 => Step::Transpose(x),
                        9 => {
                            const PERMS: [[c_int; 3]; 5] = [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
                            Step::Permute(x, PERMS[u.choose_index(PERMS.len())?])
                        }
                        _ => continue,
                    }
                }
                _ => continue,
            };
            p.info[x].used = true;
            let home = if matches!(step, Step::Binary(..) | Step::Scale(..) | Step::Sqr(..)) {
                Home::Computed
            } else {
                xi.home
            };
            push(&mut p, &mut vals, step, home, desc);
            n_nodes += 1;
        }
        wsp_ggml_free(probe);
        if n_nodes == 0 {
            return Ok(None);
        }
    }

    // outputs: every computed node nothing reads, and some others
    for i in 0..p.info.len() {
        let info = p.info[i];
        if info.home == Home::Computed && !info.is_view && (!info.used || u.ratio(1, 4)?) {
            p.outputs.push(i);
        }
    }
    // pins: some computing nodes to a backend that can run them
    if pin_nodes {
        for i in 0..p.info.len() {
            let info = p.info[i];
            if info.home == Home::Computed && !info.is_view && u.ratio(1, 3)? {
                let n_backends = if p.two_tests { 3 } else { 2 };
                let mut backend = u.choose_index(n_backends)?;
                if !supports(&p, info.op) {
                    backend = n_backends - 1;
                }
                p.pins.push((i, backend));
            }
        }
    }
    let names = |mask: u16| ops_of(mask).iter().map(|&o| op_name(o)).collect::<Vec<_>>().join(",");
    writeln!(
        desc,
        "flags={flags:#x} parallel={} op_offload={} accept_host={} async={} callback={} reserve={} usage_any(test,cpu)={:?} \
         graph_size={} evals={} modes={:#x} base={base:?}\nTEST supports [{}] offloads [{}]\noutputs {:?}\npins (value, backend) {:?} two TEST backends {} debug {} dot {}",
        p.parallel,
        p.op_offload,
        p.accept_host_srcs,
        p.async_iface,
        p.use_callback,
        p.reserve_first,
        p.usage_any,
        p.graph_size,
        p.n_evals,
        p.eval_modes,
        names(p.test_ops),
        names(p.offload_ops),
        p.outputs,
        p.pins,
        p.two_tests,
        p.sched_debug,
        p.sched_dot
    )
    .unwrap();
    Ok(Some(p))
}

// ---------------------------------------------------------------------------------------------
// running a program
// ---------------------------------------------------------------------------------------------

/// splitmix64, for tensor values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Multiples of 1/4 in [-4, 4] (zero included, so that DIV meets infinities and NaNs).
    fn value(&mut self) -> f32 {
        ((self.next() % 33) as f32 - 16.0) / 4.0
    }
}

/// Everything one input makes; `Drop` frees it all, in order, on every path.
struct World {
    tb: ggml_backend_t,
    tb2: ggml_backend_t,
    cpu: ggml_backend_t,
    cpu_ref: ggml_backend_t,
    /// weights: of the graph under test (TEST, CPU), of the reference
    weight_ctxs: [*mut ggml_context; 3],
    buffers: Vec<ggml_backend_buffer_t>,
    /// the current graphs' contexts (under test, reference)
    graph_ctxs: [*mut ggml_context; 2],
    sched_a: ggml_backend_sched_t,
    sched_b: ggml_backend_sched_t,
}

impl Drop for World {
    fn drop(&mut self) {
        // SAFETY: every handle was made for this input and is freed once; NULL ones are skipped.
        unsafe {
            for sched in [self.sched_a, self.sched_b] {
                if !sched.is_null() {
                    wsp_ggml_backend_sched_free(sched);
                }
            }
            for &buffer in &self.buffers {
                wsp_ggml_backend_buffer_free(buffer);
            }
            for ctx in self.graph_ctxs.into_iter().chain(self.weight_ctxs) {
                if !ctx.is_null() {
                    wsp_ggml_free(ctx);
                }
            }
            for backend in [self.tb, self.tb2, self.cpu, self.cpu_ref] {
                if !backend.is_null() {
                    wsp_ggml_backend_free(backend);
                }
            }
        }
    }
}

/// Eval callback state: which nodes to observe (a bit pattern over the asks).
struct Observer {
    pattern: u32,
    asks: u32,
    observed: u32,
}

unsafe extern "C" fn observe(t: *mut ggml_tensor, ask: bool, user_data: *mut c_void) -> bool {
    let o = &mut *(user_data as *mut Observer);
    if ask {
        o.asks += 1;
        return o.pattern & (1 << (o.asks % 32)) != 0;
    }
    o.observed += 1;
    // The node is computed and its backend synchronized: its bytes must be readable.
    let n = wsp_ggml_nbytes(t);
    if !(*t).buffer.is_null() && (*t).view_src.is_null() && n > 0 && wsp_ggml_is_contiguous(t) {
        let mut bytes = vec![0u8; n];
        wsp_ggml_backend_tensor_get(t, bytes.as_mut_ptr() as *mut c_void, 0, n);
    }
    true
}

/// Reads an F32 tensor (contiguous) into floats.
unsafe fn read(t: *mut ggml_tensor) -> Vec<f32> {
    let n = wsp_ggml_nelements(t) as usize;
    let mut v = vec![0f32; n];
    wsp_ggml_backend_tensor_get(t, v.as_mut_ptr() as *mut c_void, 0, n * 4);
    v
}

unsafe fn write(t: *mut ggml_tensor, values: &[f32]) {
    wsp_ggml_backend_tensor_set(t, values.as_ptr() as *const c_void, 0, values.len() * 4);
}

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn run(data: &[u8]) -> Result<()> {
    init();
    let mut u = Unstructured::new(data);
    let mut desc = String::new();
    let Some(p) = decode(&mut u, &mut desc)? else { return Ok(()) };
    let verbose = std::env::var_os("WSP_FUZZ_VERBOSE").is_some();
    if verbose {
        eprintln!("{desc}");
    }
    let mut rng = Rng(p.seed);

    // SAFETY (the rest of the function): calls into ggml, the fixture and the library with
    // handles made here and freed by `World`'s Drop.
    unsafe {
        test_backend_reset_config();
        test_backend_reset_counters();
        test_backend_set_async_iface(p.async_iface);
        let supported = ops_of(p.test_ops);
        let offload = ops_of(p.offload_ops);
        test_backend_set_supported_ops(supported.as_ptr(), supported.len() as c_int);
        test_backend_set_offload_ops(offload.as_ptr(), offload.len() as c_int);
        test_backend_set_accept_host_srcs(p.accept_host_srcs);

        let mut w = World {
            tb: test_backend_init(),
            tb2: if p.two_tests { test_backend_init() } else { std::ptr::null_mut() },
            cpu: wsp_ggml_backend_cpu_init(),
            cpu_ref: wsp_ggml_backend_cpu_init(),
            weight_ctxs: [new_ctx(8, false), new_ctx(8, false), new_ctx(8, false)],
            buffers: Vec::new(),
            graph_ctxs: [std::ptr::null_mut(); 2],
            sched_a: std::ptr::null_mut(),
            sched_b: std::ptr::null_mut(),
        };
        wsp_ggml_backend_cpu_set_n_threads(w.cpu, 1);
        wsp_ggml_backend_cpu_set_n_threads(w.cpu_ref, 1);

        // weights: allocated and filled before any graph is built
        let mut weights_a = Vec::new();
        let mut weights_b = Vec::new();
        for (i, &(ne, on_test)) in p.weights.iter().enumerate() {
            let a = wsp_ggml_new_tensor_3d(w.weight_ctxs[if on_test { 0 } else { 1 }], 0, ne[0], ne[1], ne[2]);
            let b = wsp_ggml_new_tensor_3d(w.weight_ctxs[2], 0, ne[0], ne[1], ne[2]);
            set_name(a, i);
            set_name(b, i);
            weights_a.push(a);
            weights_b.push(b);
        }
        let backends_of = [w.tb, w.cpu, w.cpu_ref];
        for k in 0..3 {
            let used = match k {
                0 => p.weights.iter().any(|w| w.1),
                1 => p.weights.iter().any(|w| !w.1),
                _ => !p.weights.is_empty(),
            };
            if !used {
                continue;
            }
            let buffer = wsp_ggml_backend_alloc_ctx_tensors(w.weight_ctxs[k], backends_of[k]);
            assert!(!buffer.is_null(), "allocating the weights failed");
            w.buffers.push(buffer);
            let usage = if k < 2 && p.usage_any[k] {
                ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_ANY
            } else {
                ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_WEIGHTS
            };
            wsp_ggml_backend_buffer_set_usage(buffer, usage);
        }
        for (a, b) in weights_a.iter().zip(&weights_b) {
            let values: Vec<f32> = (0..wsp_ggml_nelements(*a)).map(|_| rng.value()).collect();
            write(*a, &values);
            write(*b, &values);
        }

        // schedulers
        // read by sched_new
        if p.sched_debug {
            std::env::set_var("WSP_GGML_SCHED_DEBUG", "2");
        }
        if p.sched_dot {
            std::env::set_var("WSP_GGML_SCHED_DOT", "/dev/null");
        }
        let mut backends = if p.two_tests { vec![w.tb2, w.tb, w.cpu] } else { vec![w.tb, w.cpu] };
        w.sched_a = wsp_ggml_backend_sched_new(
            backends.as_mut_ptr(),
            std::ptr::null_mut(),
            backends.len() as c_int,
            p.graph_size,
            p.parallel,
            p.op_offload,
        );
        std::env::remove_var("WSP_GGML_SCHED_DEBUG");
        std::env::remove_var("WSP_GGML_SCHED_DOT");
        assert!(!w.sched_a.is_null(), "sched_new failed");
        let mut backends_b = [w.cpu_ref];
        w.sched_b =
            wsp_ggml_backend_sched_new(backends_b.as_mut_ptr(), std::ptr::null_mut(), 1, GRAPH_SIZE, false, false);
        assert!(!w.sched_b.is_null(), "sched_new (CPU only) failed");
        let mut observer = Observer { pattern: p.callback_pattern, asks: 0, observed: 0 };
        if p.use_callback {
            wsp_ggml_backend_sched_set_eval_callback(
                w.sched_a,
                Some(observe),
                &mut observer as *mut Observer as *mut c_void,
            );
        }
        if p.reserve_first {
            // on a graph of its own, as ggml users reserve with a measure graph
            let (ctx, graph, _) = build(&p, &weights_a);
            let ok = wsp_ggml_backend_sched_reserve(w.sched_a, graph);
            wsp_ggml_free(ctx);
            assert!(ok, "sched_reserve failed\n{desc}");
        }

        // evaluations
        let mut vals_a = Vec::new();
        let mut vals_b = Vec::new();
        let (mut graph_a, mut graph_b) = (std::ptr::null_mut(), std::ptr::null_mut());
        for eval in 0..p.n_evals {
            // the first, and some later ones, build and allocate the graph anew (a scheduler
            // rewires the sources of the graphs it allocates: a graph is allocated once); the
            // others compute the allocated graph again with new inputs
            let rebuild = eval == 0 || p.eval_modes & (1 << eval) != 0;
            if rebuild {
                wsp_ggml_backend_sched_reset(w.sched_a);
                wsp_ggml_backend_sched_reset(w.sched_b);
                for (k, weights) in [&weights_a, &weights_b].into_iter().enumerate() {
                    if !w.graph_ctxs[k].is_null() {
                        wsp_ggml_free(w.graph_ctxs[k]);
                        w.graph_ctxs[k] = std::ptr::null_mut();
                    }
                    let (ctx, graph, vals) = build(&p, weights);
                    w.graph_ctxs[k] = ctx;
                    if k == 0 {
                        (graph_a, vals_a) = (graph, vals);
                    } else {
                        (graph_b, vals_b) = (graph, vals);
                    }
                }
                for &(i, backend) in &p.pins {
                    wsp_ggml_backend_sched_set_tensor_backend(w.sched_a, vals_a[i], backends[backend]);
                }
                assert!(wsp_ggml_backend_sched_alloc_graph(w.sched_a, graph_a), "sched_alloc_graph failed\n{desc}");
                assert!(
                    wsp_ggml_backend_sched_alloc_graph(w.sched_b, graph_b),
                    "sched_alloc_graph (CPU only) failed\n{desc}"
                );
                // what the scheduler reports about itself
                let sched = w.sched_a;
                assert_eq!(wsp_ggml_backend_sched_get_n_backends(sched) as usize, backends.len());
                assert_eq!(wsp_ggml_backend_sched_get_n_copies(sched), if p.parallel { 4 } else { 1 });
                for (k, &backend) in backends.iter().enumerate() {
                    assert_eq!(wsp_ggml_backend_sched_get_backend(sched, k as c_int), backend);
                    wsp_ggml_backend_sched_get_buffer_size(sched, backend);
                }
                for (i, info) in p.info.iter().enumerate() {
                    if info.home == Home::Computed && !info.is_view {
                        let backend = wsp_ggml_backend_sched_get_tensor_backend(sched, vals_a[i]);
                        assert!(backends.contains(&backend), "v{i} has no backend\n{desc}");
                        // a pinned node stays, or moves up to a backend with the same buffer type
                        // (as in the reference: its pass 3 upgrades assigned nodes)
                        if let Some(&(_, pinned)) = p.pins.iter().find(|pin| pin.0 == i) {
                            let at = backends.iter().position(|&b| b == backend).unwrap();
                            let buft = |b| wsp_ggml_backend_get_default_buffer_type(b);
                            assert!(
                                at == pinned || (at < pinned && buft(backend) == buft(backends[pinned])),
                                "v{i} pinned to backend {pinned} went to backend {at}\n{desc}"
                            );
                        }
                    }
                }
            }
            for (i, info) in p.info.iter().enumerate() {
                if info.home != Home::Input || info.is_view {
                    continue;
                }
                let (a, b) = (vals_a[i], vals_b[i]);
                // an input nothing reads is not in the graph and has no memory
                assert_eq!((*a).buffer.is_null(), (*b).buffer.is_null(), "v{i} allocated in one graph only\n{desc}");
                if (*a).buffer.is_null() {
                    continue;
                }
                let values: Vec<f32> = (0..wsp_ggml_nelements(a)).map(|_| rng.value()).collect();
                write(a, &values);
                write(b, &values);
            }
            let status_a = wsp_ggml_backend_sched_graph_compute(w.sched_a, graph_a);
            let status_b = wsp_ggml_backend_sched_graph_compute(w.sched_b, graph_b);
            assert_eq!(status_b, ggml_status::GGML_STATUS_SUCCESS, "CPU-only compute failed\n{desc}");
            let n_splits = wsp_ggml_backend_sched_get_n_splits(w.sched_a);
            assert_eq!(
                status_a,
                ggml_status::GGML_STATUS_SUCCESS,
                "compute failed (eval {eval}, {n_splits} splits)\n{desc}"
            );
            for &o in &p.outputs {
                let (ra, rb) = (read(vals_a[o]), read(vals_b[o]));
                if let Some(k) = (0..ra.len()).find(|&k| !same(ra[k], rb[k])) {
                    panic!(
                        "output v{o} differs at element {k} (eval {eval}, rebuilt {rebuild}, {n_splits} splits): \
                         scheduler {} vs CPU {}\n  scheduler: {ra:?}\n  CPU:       {rb:?}\n{desc}",
                        ra[k], rb[k]
                    );
                }
            }
        }
        drop(w);

        let mut c = Counters::default();
        test_backend_counters(&mut c);
        assert!(
            c.backends_init == c.backends_free && c.buffers_alloc == c.buffers_free && c.event_new == c.event_free,
            "TEST objects leaked: {c:?}\n{desc}"
        );
        if verbose {
            eprintln!("observed {} counters {c:?}", observer.observed);
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
