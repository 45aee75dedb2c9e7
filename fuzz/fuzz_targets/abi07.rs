//! abi07: whisper.rn 0.7's additions to the backend layer (build with `--features whisper-rn-0-7`).
//!
//! Each input decodes into two parts:
//!
//! 1. **2d tensor access**: a byte tensor (I8, 1 to 256 bytes) in a CPU buffer, or in a TEST
//!    buffer (ctests/fixtures/test_backend.c, non-host memory) with or without the fixture's 2d
//!    interface, and up to 8 accesses: `tensor_set_2d`, `tensor_get_2d` and their `_async` forms
//!    (on the buffer's backend, with or without the fixture's async interface), with any offset,
//!    run size, run count (0 to 64) and strides, overlapping ones included. A plain-loop model
//!    of the tensor's bytes says what each access must do: run i moves `size` bytes between
//!    `offset + i * stride_tensor` in the tensor and `i * stride_data` in the caller's memory,
//!    in order. An access whose runs lie in the tensor is made here, and then every byte of the
//!    tensor and of the caller's memory must be the model's (nothing written outside the runs).
//!    An access with a run outside the tensor must be refused: it is made in a forked child,
//!    which must die of ggml's abort with an "out of bounds" message. (Runs of 0 bytes move
//!    nothing; at offsets that overflow, or past the tensor in an async form, whose reference
//!    asserts each run's bounds, the child may return or abort with a message.)
//!    Also a tensor that has no buffer: a child must abort with "buffer not set".
//!
//! 2. **The meta backend with the application's split states**: a meta device over 0 to 17
//!    simple devices (the CPU device, possibly several times, and the TEST device, possibly
//!    without memory: its allocations fail), and one F32 tensor of up to 4 dimensions whose split
//!    state the application's callback returns: any axis value, any segment count (0, over 16),
//!    repeat counts, and per-device shares that add up to the tensor's extent or not (also
//!    negative ones). The library's own check (`meta::split::check_static`, which its meta buffer
//!    applies to the callback's states) and the state's meaning say whether the tensor can be
//!    allocated: then it is, here, and written, read back whole (bits equal), and accessed with
//!    2d runs against the model as in
//!    part 1, where the meta buffer can transfer the runs: the library's own plan of a transfer
//!    (`meta::buffer::chunks::chunks`) accepts them. A PARTIAL tensor is written but cannot be read
//!    (the reference aborts too). What the library must refuse, a child must abort with a
//!    message naming the function.
//!
//! Each part of an input may fork one child; refusals beyond it are skipped (common/child.rs).
//! LeakSanitizer checks that every buffer and context is freed; meta devices live for the process
//! by design (one per distinct device list here: a bounded number).
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Mutex, Once};

use ::wsp_ggml_backend as lib;
use lib::abi::*;
use lib::base::ggml::{ggml_backend_alloc_ctx_tensors_from_buft, ggml_new_tensor};
use lib::meta::buffer::chunks::chunks;
use lib::meta::split::{self, check_static, SplitState};

#[path = "common/ffi.rs"]
mod ffi;
use ffi::*;

#[path = "common/child.rs"]
mod child;

extern "C" {
    fn wsp_ggml_type_name(ty: ggml_type) -> *const c_char;
    fn wsp_ggml_backend_cpu_buffer_type() -> ggml_backend_buffer_type_t;
    fn wsp_ggml_backend_dev_by_type(ty: ggml_backend_dev_type) -> ggml_backend_dev_t;
    fn wsp_ggml_backend_tensor_set_2d(
        tensor: *mut ggml_tensor,
        data: *const c_void,
        offset: usize,
        size: usize,
        n_copies: usize,
        stride_tensor: usize,
        stride_data: usize,
    );
    fn wsp_ggml_backend_tensor_get_2d(
        tensor: *const ggml_tensor,
        data: *mut c_void,
        offset: usize,
        size: usize,
        n_copies: usize,
        stride_tensor: usize,
        stride_data: usize,
    );
    fn wsp_ggml_backend_tensor_set_2d_async(
        backend: ggml_backend_t,
        tensor: *mut ggml_tensor,
        data: *const c_void,
        offset: usize,
        size: usize,
        n_copies: usize,
        stride_tensor: usize,
        stride_data: usize,
    );
    fn wsp_ggml_backend_tensor_get_2d_async(
        backend: ggml_backend_t,
        tensor: *const ggml_tensor,
        data: *mut c_void,
        offset: usize,
        size: usize,
        n_copies: usize,
        stride_tensor: usize,
        stride_data: usize,
    );
    fn wsp_ggml_backend_meta_device(
        devs: *mut ggml_backend_dev_t,
        n_devs: usize,
        get_split_state: ggml_backend_meta_get_split_state_t,
        userdata: *mut c_void,
    ) -> ggml_backend_dev_t;
    fn test_backend_set_2d_iface(enable: bool);
}

const TYPE_F32: ggml_type = 0;
const TYPE_I8: ggml_type = 24;

fn verbose() -> bool {
    std::env::var_os("WSP_FUZZ_VERBOSE").is_some()
}

/// One-time setup: no gdb on an abort, logs dropped unless WSP_FUZZ_LOG is set, type numbers
/// checked.
fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("WSP_GGML_NO_BACKTRACE", "1");
        if std::env::var_os("WSP_FUZZ_LOG").is_none() {
            unsafe extern "C" fn quiet(_: std::ffi::c_int, _: *const c_char, _: *mut c_void) {}
            // SAFETY: the callback ignores its arguments.
            unsafe { wsp_ggml_log_set(Some(quiet), std::ptr::null_mut()) };
        }
        for (ty, name) in [(TYPE_F32, "f32"), (TYPE_I8, "i8")] {
            // SAFETY: ggml's static name of a type.
            let got = unsafe { CStr::from_ptr(wsp_ggml_type_name(ty)) };
            assert_eq!(got.to_str().unwrap(), name, "type numbers out of date");
        }
    });
}

/// A ggml context for a few tensors, without data.
fn context() -> *mut ggml_context {
    // SAFETY: plain sizes.
    let mem_size = 8 * unsafe { wsp_ggml_tensor_overhead() };
    // SAFETY: ggml allocates its own memory.
    let ctx = unsafe { wsp_ggml_init(ggml_init_params { mem_size, mem_buffer: std::ptr::null_mut(), no_alloc: true }) };
    assert!(!ctx.is_null());
    ctx
}

// ---------------------------------------------------------------------------------------------
// 2d accesses and their model
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Set,
    Get,
    SetAsync,
    GetAsync,
}

#[derive(Clone, Copy, Debug)]
struct Access {
    kind: Kind,
    offset: usize,
    size: usize,
    n_copies: usize,
    stride_tensor: usize,
    stride_data: usize,
}

/// What the model says of an access to a tensor of `nbytes` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Every run lies in the tensor: the access must be made as the model makes it.
    Valid,
    /// A run leaves the tensor: it must be refused with an abort.
    OutOfBounds,
    /// Runs of 0 bytes at offsets that overflow, or (async forms) lie past the tensor: the
    /// reference does nothing, or asserts the bounds run by run (the async forms without a 2d
    /// entry); the library may do either.
    EmptyOutside,
}

impl Access {
    fn verdict(&self, nbytes: usize) -> Verdict {
        let starts =
            (0..self.n_copies).map(|i| i.checked_mul(self.stride_tensor).and_then(|d| d.checked_add(self.offset)));
        if self.size == 0 {
            let asynchronous = matches!(self.kind, Kind::SetAsync | Kind::GetAsync);
            let fine = starts.clone().all(|s| s.is_some_and(|s| !asynchronous || s <= nbytes));
            return if fine { Verdict::Valid } else { Verdict::EmptyOutside };
        }
        let in_bounds =
            starts.map(|s| s.and_then(|s| s.checked_add(self.size))).all(|end| end.is_some_and(|e| e <= nbytes));
        if in_bounds {
            Verdict::Valid
        } else {
            Verdict::OutOfBounds
        }
    }

    /// Bytes of the caller's memory the runs span (at least 1, for a valid pointer).
    fn data_len(&self) -> usize {
        match self.n_copies {
            0 => 1,
            n => ((n - 1) * self.stride_data + self.size.min(1 << 16)).max(1),
        }
    }

    /// The model: moves the runs between `tensor` and `data`, in order.
    fn apply(&self, tensor: &mut [u8], data: &mut [u8]) {
        if self.size == 0 {
            return;
        }
        for i in 0..self.n_copies {
            let (t, d) = (self.offset + i * self.stride_tensor, i * self.stride_data);
            match self.kind {
                Kind::Set | Kind::SetAsync => tensor[t..t + self.size].copy_from_slice(&data[d..d + self.size]),
                Kind::Get | Kind::GetAsync => data[d..d + self.size].copy_from_slice(&tensor[t..t + self.size]),
            }
        }
    }

    /// Makes the access through the library.
    ///
    /// # Safety
    /// `tensor` is live (and `backend` for the async forms), `data` spans `data_len` bytes.
    unsafe fn call(&self, backend: ggml_backend_t, tensor: *mut ggml_tensor, data: *mut u8) {
        let a = *self;
        let d = data.cast::<c_void>();
        let (o, s, n, st, sd) = (a.offset, a.size, a.n_copies, a.stride_tensor, a.stride_data);
        // SAFETY: the caller's promises.
        unsafe {
            match a.kind {
                Kind::Set => wsp_ggml_backend_tensor_set_2d(tensor, d, o, s, n, st, sd),
                Kind::Get => wsp_ggml_backend_tensor_get_2d(tensor, d, o, s, n, st, sd),
                Kind::SetAsync => wsp_ggml_backend_tensor_set_2d_async(backend, tensor, d, o, s, n, st, sd),
                Kind::GetAsync => wsp_ggml_backend_tensor_get_2d_async(backend, tensor, d, o, s, n, st, sd),
            }
            if matches!(a.kind, Kind::SetAsync | Kind::GetAsync) {
                wsp_ggml_backend_synchronize(backend);
            }
        }
    }
}

/// A size: mostly small (up to `max`), sometimes hostile.
fn size_value(u: &mut Unstructured, max: usize, nbytes: usize) -> Result<usize> {
    Ok(if u.ratio(1, 8)? {
        *u.choose(&[usize::MAX, usize::MAX / 2 + 1, 1 << 40, nbytes, nbytes + 1, isize::MAX as usize])?
    } else {
        u.int_in_range(0..=max)?
    })
}

/// An access to a tensor of `nbytes` bytes (`unit`: offsets and sizes in whole units of this
/// many bytes; async forms only when `with_async`).
fn access(u: &mut Unstructured, nbytes: usize, unit: usize, with_async: bool) -> Result<Access> {
    let kinds: &[Kind] =
        if with_async { &[Kind::Set, Kind::Get, Kind::SetAsync, Kind::GetAsync] } else { &[Kind::Set, Kind::Get] };
    let kind = *u.choose(kinds)?;
    let offset = size_value(u, nbytes + 2, nbytes)?;
    let size = size_value(u, nbytes.min(64), nbytes)?;
    let n_copies = if u.ratio(1, 4)? { u.int_in_range(0..=2)? } else { u.int_in_range(0..=64)? };
    let stride_tensor = size_value(u, 64, nbytes)?;
    let stride_data = u.int_in_range(0..=96)?;
    let whole = |v: usize| if unit > 1 && v < usize::MAX / 2 { v - v % unit } else { v };
    Ok(Access {
        kind,
        offset: whole(offset),
        size: whole(size),
        n_copies,
        stride_tensor: whole(stride_tensor),
        stride_data: whole(stride_data).max(if unit > 1 { unit } else { 0 }),
    })
}

fn pattern(u: &mut Unstructured, n: usize) -> Result<Vec<u8>> {
    let seed = u.arbitrary::<u8>()?;
    Ok((0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect())
}

/// Runs `a` on `tensor` (whose bytes the model `model` holds) and checks it, in this process when
/// the model says it is valid, else in a child that must abort. `read_back` reads the tensor's
/// bytes; `same` compares a tensor read-back with the model.
///
/// # Safety
/// `tensor` and `backend` are live.
unsafe fn check_access(
    what: &str,
    a: Access,
    backend: ggml_backend_t,
    tensor: *mut ggml_tensor,
    model: &mut [u8],
    u: &mut Unstructured,
    read_back: &dyn Fn() -> Option<Vec<u8>>,
    same: &dyn Fn(&[u8], &[u8]) -> bool,
) -> Result<()> {
    let verdict = a.verdict(model.len());
    if verbose() {
        eprintln!("{what}: {a:?} on {} bytes: {verdict:?}", model.len());
    }
    let mut data = pattern(u, a.data_len())?;
    match verdict {
        Verdict::Valid => {
            let mut expected = data.clone();
            a.apply(model, &mut expected);
            // SAFETY: live tensor and backend, data spans data_len bytes.
            unsafe { a.call(backend, tensor, data.as_mut_ptr()) };
            assert_eq!(data, expected, "{what}: {a:?}: the caller's memory differs from the model's");
            if let Some(got) = read_back() {
                assert!(
                    same(&got, model),
                    "{what}: {a:?}: the tensor differs from the model\n got {got:?}\nwant {model:?}"
                );
            }
        }
        Verdict::OutOfBounds => {
            // SAFETY: as above, in the child.
            child::expect_abort(what, &["out of bounds"], || unsafe { a.call(backend, tensor, data.as_mut_ptr()) });
        }
        // SAFETY: as above, in the child.
        Verdict::EmptyOutside => match child::run(|| unsafe { a.call(backend, tensor, data.as_mut_ptr()) }) {
            None | Some(child::Outcome::Returned | child::Outcome::Aborted(_)) => {}
            other => panic!("{what}: {a:?}: empty runs outside the tensor: {other:?}"),
        },
    }
    Ok(())
}

/// Part 1: a byte tensor in a CPU or TEST buffer and up to 8 accesses.
fn part_2d(u: &mut Unstructured) -> Result<()> {
    let nbytes = u.int_in_range(1..=256)?;
    let place = u.int_in_range(0..=2)?; // CPU, TEST, TEST with the 2d interface
    let async_iface = u.arbitrary::<bool>()?;
    // SAFETY: the fixture's configuration, then live objects only.
    unsafe {
        test_backend_reset_config();
        test_backend_reset_counters();
        test_backend_set_2d_iface(place == 2);
        test_backend_set_async_iface(async_iface);
        let (backend, buft) = if place == 0 {
            (wsp_ggml_backend_cpu_init(), wsp_ggml_backend_cpu_buffer_type())
        } else {
            let b = test_backend_init();
            (b, wsp_ggml_backend_get_default_buffer_type(b))
        };
        let ctx = context();
        let tensor = ggml_new_tensor(ctx, TYPE_I8, 1, [nbytes as i64, 1, 1, 1].as_ptr());
        let buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
        assert!(!buffer.is_null(), "allocating the tensor failed");
        let unallocated = ggml_new_tensor(ctx, TYPE_I8, 1, [nbytes as i64, 1, 1, 1].as_ptr());
        let mut model = pattern(u, nbytes)?;
        wsp_ggml_backend_tensor_set(tensor, model.as_ptr().cast(), 0, nbytes);
        let read_back = || {
            let mut v = vec![0u8; nbytes];
            wsp_ggml_backend_tensor_get(tensor, v.as_mut_ptr().cast(), 0, nbytes);
            Some(v)
        };
        let n = u.int_in_range(0..=8)?;
        for _ in 0..n {
            let a = access(u, nbytes, 1, true)?;
            check_access("2d", a, backend, tensor, &mut model, u, &read_back, &|x, y| x == y)?;
        }
        // A tensor made after the allocation has no buffer: the reference asserts one.
        if u.ratio(1, 16)? {
            let a = Access { kind: Kind::Set, offset: 0, size: 1, n_copies: 2, stride_tensor: 1, stride_data: 1 };
            let mut data = [0u8; 2];
            child::expect_abort("2d without a buffer", &["buffer not set"], || {
                a.call(backend, unallocated, data.as_mut_ptr())
            });
        }
        wsp_ggml_backend_buffer_free(buffer);
        wsp_ggml_free(ctx);
        wsp_ggml_backend_free(backend);
        let mut c = Counters::default();
        test_backend_counters(&mut c);
        assert_eq!((c.backends_init, c.buffers_alloc), (c.backends_free, c.buffers_free), "TEST objects leaked: {c:?}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// meta: hostile split states
// ---------------------------------------------------------------------------------------------

/// The state the callback returns for every tensor (set per input; the fuzzing process is single
/// threaded, and a child has its own copy).
static STATE: Mutex<Option<ggml_backend_meta_split_state>> = Mutex::new(None);

unsafe extern "C" fn split_state(_: *const ggml_tensor, _: *mut c_void) -> ggml_backend_meta_split_state {
    STATE.lock().unwrap_or_else(|e| e.into_inner()).expect("a split state is set")
}

fn empty_state() -> ggml_backend_meta_split_state {
    ggml_backend_meta_split_state { axis: GGML_BACKEND_SPLIT_AXIS_MIRRORED, ne: [0; 256], nr: [0; 16], n_segments: 1 }
}

/// A split state for a tensor of extent `ne` over `n_devs` devices, and the extent (an
/// adding-up state adjusts the extent along its axis to its shares).
fn state(u: &mut Unstructured, n_devs: usize, ne: &mut [i64; 4]) -> Result<ggml_backend_meta_split_state> {
    let mut s = empty_state();
    let axes = [
        GGML_BACKEND_SPLIT_AXIS_0,
        GGML_BACKEND_SPLIT_AXIS_1,
        GGML_BACKEND_SPLIT_AXIS_2,
        GGML_BACKEND_SPLIT_AXIS_3,
        GGML_BACKEND_SPLIT_AXIS_MIRRORED,
        GGML_BACKEND_SPLIT_AXIS_PARTIAL,
    ];
    s.axis = if u.ratio(1, 8)? {
        let any = u.arbitrary()?;
        *u.choose(&[GGML_BACKEND_SPLIT_AXIS_NONE, GGML_BACKEND_SPLIT_AXIS_UNKNOWN, 4, 9, -1, 12, i32::MIN, any])?
    } else {
        *u.choose(&axes)?
    };
    let hostile = u.ratio(1, 3)?;
    if !hostile {
        // Segments that add up: the extent along the axis follows.
        s.n_segments = u.int_in_range(1..=3)?;
        let mut total = 0;
        for seg in 0..s.n_segments as usize {
            s.nr[seg] = u.int_in_range(1..=2)?;
            for j in 0..n_devs {
                let share = u.int_in_range(0..=3)?;
                s.ne[seg * n_devs + j] = share;
                total += share * i64::from(s.nr[seg]);
            }
        }
        if total == 0 {
            s.ne[0] = 1;
            total = i64::from(s.nr[0]);
        }
        if (0..4).contains(&s.axis) {
            ne[s.axis as usize] = total;
        }
        if s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL || s.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED {
            s.n_segments = 1;
            s.nr = [0; 16];
            s.nr[0] = 1;
        }
    } else {
        let any = u.arbitrary()?;
        s.n_segments = *u.choose(&[0, 1, 2, 16, 17, 1000, u32::MAX, any])?;
        for r in s.nr.iter_mut() {
            *r = *u.choose(&[0, 1, 2, 3, u32::MAX])?;
        }
        for v in s.ne.iter_mut().take(16 * n_devs.max(1)) {
            *v = if u.ratio(1, 16)? {
                *u.choose(&[-1, -3, i64::MAX, i64::MIN, 1 << 40])?
            } else {
                u.int_in_range(0..=4)?
            };
        }
    }
    Ok(s)
}

/// Part 2: a meta device, one tensor with the application's split state.
fn part_meta(u: &mut Unstructured) -> Result<()> {
    // SAFETY: the CPU device is registered at start-up.
    let cpu = unsafe { wsp_ggml_backend_dev_by_type(ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_CPU) };
    assert!(!cpu.is_null());
    let n_devs = if u.ratio(1, 16)? { *u.choose(&[0usize, 17])? } else { u.int_in_range(1..=4)? };
    let mut with_test = false;
    let mut devs: Vec<ggml_backend_dev_t> = Vec::with_capacity(n_devs);
    for _ in 0..n_devs {
        let test = u.ratio(1, 4)?;
        with_test |= test;
        // SAFETY: the fixture's static device.
        devs.push(if test { unsafe { test_backend_dev() } } else { cpu });
    }
    let no_memory = with_test && u.ratio(1, 4)?;
    let mut ne = [1i64; 4];
    for (d, v) in ne.iter_mut().enumerate() {
        *v = if d < 2 { u.int_in_range(1..=6)? } else { u.int_in_range(1..=2)? };
    }
    let s = state(u, n_devs, &mut ne)?;
    *STATE.lock().unwrap() = Some(s);
    let as_split = SplitState::from(s);

    // What the library must accept: a state its own check passes, that names a real split (not
    // NONE or UNKNOWN) with shares that are extents (not negative); 1 to 16 devices, each able
    // to allocate.
    let checked = check_static(&as_split, &ne, 1, n_devs.clamp(1, 16));
    let shares_ok = !(0..4).contains(&s.axis)
        || s.ne[..(s.n_segments.min(16) as usize) * n_devs.clamp(1, 16)].iter().all(|&v| v >= 0);
    let meaningful = s.axis != GGML_BACKEND_SPLIT_AXIS_NONE && s.axis != GGML_BACKEND_SPLIT_AXIS_UNKNOWN;
    // A device without memory fails only where it holds bytes: an empty share gets a zero-size
    // buffer without asking the buffer type (as the reference's allocation does).
    // SAFETY: the fixture's static device.
    let test_dev = unsafe { test_backend_dev() };
    let starved = no_memory
        && checked.is_ok()
        && devs
            .iter()
            .enumerate()
            .any(|(j, &d)| d == test_dev && (!split::is_dim(s.axis) || split::share(&as_split, n_devs, j) > 0));
    let valid = (1..=16).contains(&n_devs) && !starved && checked.is_ok() && shares_ok && meaningful;
    if verbose() {
        eprintln!(
            "meta: {n_devs} devices (TEST: {with_test}, no memory: {no_memory}), ne {ne:?}, axis {} n_segments {} ne {:?} nr {:?}: {checked:?}, valid {valid}",
            s.axis,
            s.n_segments,
            &s.ne[..(16 * n_devs).min(24)],
            &s.nr[..4]
        );
    }

    // SAFETY: live devices; the callback returns STATE; every object made is freed.
    unsafe {
        test_backend_reset_config();
        test_backend_set_fail_alloc(no_memory);
        let alloc = || {
            let meta =
                wsp_ggml_backend_meta_device(devs.as_ptr().cast_mut(), n_devs, Some(split_state), std::ptr::null_mut());
            let buft = wsp_ggml_backend_dev_buffer_type(meta);
            let ctx = context();
            let tensor = ggml_new_tensor(ctx, TYPE_F32, 4, ne.as_ptr());
            (ctx, tensor, ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft))
        };
        if valid {
            let (ctx, tensor, buffer) = alloc();
            assert!(!buffer.is_null(), "meta allocation failed");
            let checked = check_meta_tensor(u, tensor, &as_split, n_devs);
            wsp_ggml_backend_buffer_free(buffer);
            wsp_ggml_free(ctx);
            checked?;
        } else {
            // Refused when allocated, or else when first written.
            child::expect_abort("meta", &["wsp_ggml_backend"], || {
                let (_, tensor, _) = alloc();
                let zeros = vec![0u8; wsp_ggml_nbytes(tensor)];
                wsp_ggml_backend_tensor_set(tensor, zeros.as_ptr().cast(), 0, zeros.len());
            });
        }
        test_backend_set_fail_alloc(false);
    }
    Ok(())
}

/// Whether the meta buffer can move bytes `[offset, offset + size)` of `tensor` (state `state`
/// over `n` devices) in one transfer: what the library's own plan of a transfer
/// (`meta::buffer::chunks::chunks`) accepts for a split or segmented state; MIRRORED unsegmented;
/// PARTIAL in whole floats.
///
/// # Safety
/// `tensor` is a live meta tensor.
unsafe fn transfer_ok(tensor: *const ggml_tensor, state: &SplitState, n: usize, offset: usize, size: usize) -> bool {
    // SAFETY: a live tensor.
    let (ne, nb) = unsafe { ((*tensor).ne, (*tensor).nb) };
    let segmented = state.n_segments != 1 || state.nr[0] != 1;
    if segmented || split::is_dim(state.axis) {
        let slice_nb: Vec<[usize; 4]> = (0..n).map(|j| split::slice_layout(state, &ne, &nb, n, j).1).collect();
        return chunks(state, &ne, &nb, 1, &slice_nb, offset, size).is_ok();
    }
    match state.axis {
        GGML_BACKEND_SPLIT_AXIS_MIRRORED => true,
        GGML_BACKEND_SPLIT_AXIS_PARTIAL => offset % 4 == 0 && size % 4 == 0,
        _ => false,
    }
}

/// A meta tensor written whole, read back, then accessed with 2d runs, against the model; what
/// the meta buffer cannot transfer (transfer_ok; reads of a PARTIAL tensor) must be refused with
/// an abort, in a child.
///
/// # Safety
/// `tensor` is a live, allocated F32 meta tensor whose split state is `state` over `n` devices.
unsafe fn check_meta_tensor(
    u: &mut Unstructured,
    tensor: *mut ggml_tensor,
    state: &SplitState,
    n: usize,
) -> Result<()> {
    let partial = state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL;
    // SAFETY: a live tensor.
    let nbytes = unsafe { wsp_ggml_nbytes(tensor) };
    let values: Vec<f32> = (0..nbytes / 4).map(|_| u.int_in_range(-8i8..=8).map(f32::from)).collect::<Result<_>>()?;
    let mut model: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    // A PARTIAL tensor cannot be read (the reference aborts too): its writes are checked to be
    // accepted, its reads to be refused.
    let read_back = || {
        if partial {
            return None;
        }
        let mut v = vec![0u8; nbytes];
        // SAFETY: a live tensor of nbytes bytes.
        unsafe { wsp_ggml_backend_tensor_get(tensor, v.as_mut_ptr().cast(), 0, nbytes) };
        Some(v)
    };
    let floats = |b: &[u8]| b.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
    // SAFETY: a live meta tensor.
    if !unsafe { transfer_ok(tensor, state, n, 0, nbytes) } {
        // SAFETY: a live tensor of nbytes bytes (in the child).
        child::expect_abort("meta whole write", &["wsp_ggml_backend"], || unsafe {
            wsp_ggml_backend_tensor_set(tensor, model.as_ptr().cast(), 0, nbytes)
        });
        return Ok(());
    }
    // SAFETY: a live tensor of nbytes bytes.
    unsafe { wsp_ggml_backend_tensor_set(tensor, model.as_ptr().cast(), 0, nbytes) };
    if let Some(got) = read_back() {
        assert_eq!(floats(&got), floats(&model), "meta: a whole write does not read back");
    }
    let n_accesses = u.int_in_range(0..=4)?;
    for _ in 0..n_accesses {
        let a = access(u, nbytes, 4, false)?;
        let moves = a.size > 0 && a.n_copies > 0;
        let reads = matches!(a.kind, Kind::Get | Kind::GetAsync);
        // Every run the meta buffer must transfer.
        let transferable = !moves
            || a.verdict(nbytes) != Verdict::Valid
            || (!(partial && reads)
                // SAFETY: a live meta tensor.
                && (0..a.n_copies).all(|i| unsafe { transfer_ok(tensor, state, n, a.offset + i * a.stride_tensor, a.size) }));
        if transferable {
            // SAFETY: a live tensor; the meta backend's async forms are not exercised here.
            unsafe {
                check_access("meta 2d", a, std::ptr::null_mut(), tensor, &mut model, u, &read_back, &|x, y| x == y)?
            };
        } else {
            let mut data = pattern(u, a.data_len())?;
            // SAFETY: as in check_access, in the child.
            child::expect_abort("meta 2d", &["wsp_ggml_backend"], || unsafe {
                a.call(std::ptr::null_mut(), tensor, data.as_mut_ptr())
            });
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    init();
    let mut u = Unstructured::new(data);
    // One refusal checked per part (forks are slow under ASan).
    child::allow(1);
    let _ = part_2d(&mut u);
    child::allow(1);
    let _ = part_meta(&mut u);
});
