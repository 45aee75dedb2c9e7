//! registry: the backend registry and the module loader, called from 2 to 4 threads at once.
//!
//! Each input decodes into a thread count and up to 24 rounds; in a round every thread makes one
//! call at the same time (they meet at a barrier before and after it), then the main thread
//! checks the registry against a model. The calls:
//! - `wsp_ggml_backend_load` of the thread's own copy of whisper.rn's CPU backend built as a
//!   module (fuzz/build.rs; one file per thread, so that a module's load count is one thread's),
//!   and `wsp_ggml_backend_unload` of its reg (once, or twice in a row: the second is then an
//!   unknown reg, as is the address of a static that was never a reg);
//! - `wsp_ggml_backend_device_register` of the module's device while it is loaded;
//! - `wsp_ggml_backend_register` and `unload` of the TEST fixture's reg (thread 0 only);
//! - lookups: reg and device by name (known and unknown names), device by type, the counts;
//! - `wsp_ggml_backend_load_all` (no module of a known backend name is on its search path: it must
//!   change nothing).
//!
//! After every round: `reg_count` and `dev_count` agree with the listings (`reg_get`,
//! `dev_get`), which hold no duplicate reg; every listed device's reg is listed, and every
//! listed reg's devices are; the regs listed are exactly those at start, plus TEST while it is
//! registered, plus each module while its loads outnumber its unloads, and then its reg is the
//! one every load returned; the device count is what the model says (a device registered again
//! is listed again before whisper.rn 0.7, once from 0.7); no device of an unloaded module is
//! listed; and a module is mapped (`dlopen` with RTLD_NOLOAD) exactly while it is loaded.
//! At the end of each input everything loaded is unloaded and the start is checked again.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex, Once, OnceLock};

use ::wsp_ggml_backend as lib;
use lib::abi::*;

#[path = "common/ffi.rs"]
mod ffi;
use ffi::{test_backend_dev, test_backend_reg};

extern "C" {
    fn wsp_ggml_backend_register(reg: ggml_backend_reg_t);
    fn wsp_ggml_backend_device_register(device: ggml_backend_dev_t);
    fn wsp_ggml_backend_reg_count() -> usize;
    fn wsp_ggml_backend_reg_get(index: usize) -> ggml_backend_reg_t;
    fn wsp_ggml_backend_reg_by_name(name: *const c_char) -> ggml_backend_reg_t;
    fn wsp_ggml_backend_dev_count() -> usize;
    fn wsp_ggml_backend_dev_get(index: usize) -> ggml_backend_dev_t;
    fn wsp_ggml_backend_dev_by_name(name: *const c_char) -> ggml_backend_dev_t;
    fn wsp_ggml_backend_dev_by_type(ty: ggml_backend_dev_type) -> ggml_backend_dev_t;
    fn wsp_ggml_backend_dev_backend_reg(device: ggml_backend_dev_t) -> ggml_backend_reg_t;
    fn wsp_ggml_backend_reg_dev_count(reg: ggml_backend_reg_t) -> usize;
    fn wsp_ggml_backend_reg_dev_get(reg: ggml_backend_reg_t, index: usize) -> ggml_backend_dev_t;
    fn wsp_ggml_backend_load(path: *const c_char) -> ggml_backend_reg_t;
    fn wsp_ggml_backend_unload(reg: ggml_backend_reg_t);
    fn wsp_ggml_backend_load_all();
}

const MAX_THREADS: usize = 4;
/// From 0.7 a device registered twice is listed once.
const DEDUP_DEVICES: bool = cfg!(feature = "whisper-rn-0-7");

/// Never a reg: unloading it must change nothing.
static NOT_A_REG: u8 = 0;

fn module_path(t: usize) -> CString {
    let copies: usize = env!("WSP_FUZZ_MODULE_COPIES").parse().unwrap();
    assert!(t < copies);
    CString::new(format!("{}/libwsp-fuzz-cpu-{t}.so", env!("WSP_FUZZ_MODULE_DIR"))).unwrap()
}

/// Whether the module file is mapped in this process.
fn is_mapped(t: usize) -> bool {
    let path = module_path(t);
    // SAFETY: RTLD_NOLOAD never loads; a handle it gives is closed again.
    unsafe {
        let h = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        if !h.is_null() {
            libc::dlclose(h);
        }
        !h.is_null()
    }
}

/// What the registry held before the first input (the built-in backends).
struct Start {
    regs: Vec<usize>,
    devs: usize,
}

fn start() -> &'static Start {
    static START: OnceLock<Start> = OnceLock::new();
    START.get_or_init(|| {
        let (regs, devs) = listings();
        Start { regs, devs: devs.len() }
    })
}

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("WSP_GGML_NO_BACKTRACE", "1");
        start();
        for t in 0..MAX_THREADS {
            assert!(!is_mapped(t), "module {t} mapped before any load");
        }
        // Every call once on this thread first: what they set up once per thread (thread-local
        // destructors registered with glibc) is then not counted as an input's leak.
        let module = [Mutex::new(Module::default())];
        let test_registered = AtomicBool::new(false);
        for op in [Op::Load, Op::DeviceRegister, Op::RegisterTest, Op::ByName(0), Op::ByName(1), Op::ByType(0)]
            .into_iter()
            .chain([Op::Counts, Op::LoadAll, Op::UnloadTest, Op::Unload, Op::UnloadTwice, Op::UnloadUnknown])
        {
            step(0, op, &mut module[0].lock().unwrap(), &test_registered);
            check(&format!("warm-up {op:?}"), &module, test_registered.load(Ordering::SeqCst));
        }
    });
}

/// One thread's module, as the model sees it.
#[derive(Default, Debug)]
struct Module {
    loads: usize,
    /// The reg its loads returned (while loaded; kept after for the record).
    reg: usize,
    /// Its device, while loaded.
    dev: usize,
    /// device_register calls of its device since it was loaded.
    extra_devs: usize,
    /// Devices it had when last loaded (they must not be listed once it is unloaded).
    old_devs: Vec<usize>,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Load,
    Unload,
    UnloadTwice,
    UnloadUnknown,
    DeviceRegister,
    RegisterTest,
    UnloadTest,
    ByName(u8),
    ByType(u8),
    Counts,
    LoadAll,
}

impl Op {
    /// Whether it may load or unload a module (see decode).
    fn maps(self) -> bool {
        matches!(self, Op::Load | Op::Unload | Op::UnloadTwice | Op::LoadAll)
    }
}

fn decode(u: &mut Unstructured) -> Result<(usize, Vec<Vec<Op>>)> {
    let n_threads = u.int_in_range(2..=MAX_THREADS)?;
    let n_rounds = u.int_in_range(1..=24)?;
    let mut rounds = Vec::with_capacity(n_rounds);
    for _ in 0..n_rounds {
        let mut ops = Vec::with_capacity(n_threads);
        for t in 0..n_threads {
            let op = match u.int_in_range(0..=12)? {
                0 | 1 | 2 => Op::Load,
                3 | 4 => Op::Unload,
                5 => Op::UnloadTwice,
                6 => Op::UnloadUnknown,
                7 => Op::DeviceRegister,
                8 if t == 0 => Op::RegisterTest,
                8 => Op::Counts,
                9 if t == 0 => Op::UnloadTest,
                9 => Op::LoadAll,
                10 => Op::ByName(u.int_in_range(0..=3)?),
                11 => Op::ByType(u.int_in_range(0..=2)?),
                _ => Op::Counts,
            };
            ops.push(op);
        }
        // A reg unloaded twice in a row is the address of an unmapped module: another thread's
        // module mapped meanwhile could take that address and be the reg then. In such a round
        // the other threads only look up.
        if let Some(t) = ops.iter().position(|o| matches!(o, Op::UnloadTwice)) {
            for (i, op) in ops.iter_mut().enumerate() {
                if i != t && op.maps() {
                    *op = Op::Counts;
                }
            }
            for op in ops.iter_mut().skip(t + 1) {
                if matches!(op, Op::UnloadTwice) {
                    *op = Op::Counts;
                }
            }
        }
        rounds.push(ops);
    }
    Ok((n_threads, rounds))
}

fn as_reg(p: usize) -> ggml_backend_reg_t {
    p as ggml_backend_reg_t
}

/// One call of thread `t`, and the model's update.
fn step(t: usize, op: Op, m: &mut Module, test_registered: &AtomicBool) {
    let verbose = std::env::var_os("WSP_FUZZ_VERBOSE").is_some();
    if verbose {
        eprintln!("thread {t}: {op:?} (loads {})", m.loads);
    }
    // SAFETY: every pointer passed is a live reg or device, a string, or (unload) any value.
    unsafe {
        match op {
            Op::Load => {
                let reg = wsp_ggml_backend_load(module_path(t).as_ptr()) as usize;
                assert_ne!(reg, 0, "thread {t}: loading its module failed");
                if m.loads > 0 {
                    assert_eq!(reg, m.reg, "thread {t}: a module loaded again gave another reg");
                } else {
                    m.reg = reg;
                    m.extra_devs = 0;
                    assert_eq!(wsp_ggml_backend_reg_dev_count(as_reg(reg)), 1, "the CPU module has one device");
                    m.dev = wsp_ggml_backend_reg_dev_get(as_reg(reg), 0) as usize;
                    m.old_devs = vec![m.dev];
                }
                m.loads += 1;
            }
            Op::Unload | Op::UnloadTwice if m.loads > 0 => {
                wsp_ggml_backend_unload(as_reg(m.reg));
                m.loads -= 1;
                if matches!(op, Op::UnloadTwice) && m.loads == 0 {
                    // Now an unknown reg (its module is closed): ignored.
                    wsp_ggml_backend_unload(as_reg(m.reg));
                }
            }
            Op::Unload | Op::UnloadTwice | Op::UnloadUnknown => {
                wsp_ggml_backend_unload(&NOT_A_REG as *const u8 as ggml_backend_reg_t);
            }
            Op::DeviceRegister if m.loads > 0 => {
                wsp_ggml_backend_device_register(m.dev as ggml_backend_dev_t);
                m.extra_devs += 1;
            }
            Op::RegisterTest => {
                wsp_ggml_backend_register(test_backend_reg());
                test_registered.store(true, Ordering::SeqCst);
            }
            Op::UnloadTest => {
                wsp_ggml_backend_unload(test_backend_reg());
                test_registered.store(false, Ordering::SeqCst);
            }
            Op::ByName(which) => {
                let name = [c"CPU", c"TEST", c"nope", c""][which as usize];
                let reg = wsp_ggml_backend_reg_by_name(name.as_ptr());
                let dev = wsp_ggml_backend_dev_by_name(name.as_ptr());
                if which >= 2 {
                    assert!(reg.is_null() && dev.is_null(), "{name:?} found");
                }
                if which == 0 {
                    assert!(!reg.is_null() && !dev.is_null(), "the built-in CPU backend not found");
                }
                if which == 1 && t == 0 {
                    // Only thread 0 registers and unregisters TEST.
                    assert_eq!(!reg.is_null(), test_registered.load(Ordering::SeqCst), "TEST by name");
                    assert_eq!(
                        dev == test_backend_dev(),
                        test_registered.load(Ordering::SeqCst),
                        "TEST device by name"
                    );
                }
            }
            Op::ByType(which) => {
                let ty = [
                    ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_CPU,
                    ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_GPU,
                    ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_ACCEL,
                ][which as usize];
                let dev = wsp_ggml_backend_dev_by_type(ty);
                if which == 0 {
                    assert!(!dev.is_null(), "no CPU device");
                }
            }
            Op::Counts => {
                let _ = (wsp_ggml_backend_reg_count(), wsp_ggml_backend_dev_count());
            }
            Op::LoadAll => wsp_ggml_backend_load_all(),
            Op::DeviceRegister => {}
        }
    }
}

/// The regs and devices listed.
fn listings() -> (Vec<usize>, Vec<usize>) {
    // SAFETY: indices below the counts, while no other thread calls the registry.
    unsafe {
        let regs = (0..wsp_ggml_backend_reg_count()).map(|i| wsp_ggml_backend_reg_get(i) as usize).collect();
        let devs = (0..wsp_ggml_backend_dev_count()).map(|i| wsp_ggml_backend_dev_get(i) as usize).collect();
        (regs, devs)
    }
}

/// The invariants, while no other thread calls the registry.
fn check(when: &str, modules: &[Mutex<Module>], test_registered: bool) {
    let (regs, devs) = listings();
    let start = start();
    let reg_set: HashSet<usize> = regs.iter().copied().collect();
    assert_eq!(reg_set.len(), regs.len(), "{when}: a reg listed twice: {regs:x?}");
    let dev_set: HashSet<usize> = devs.iter().copied().collect();

    let mut want: HashSet<usize> = start.regs.iter().copied().collect();
    let mut want_devs = start.devs;
    // SAFETY: the fixture's static reg and device.
    let (test_reg, test_dev) = unsafe { (test_backend_reg() as usize, test_backend_dev() as usize) };
    if test_registered {
        want.insert(test_reg);
        want_devs += 1;
    }
    // A module mapped where an unloaded one was may have its device at the same address.
    let live_devs: HashSet<usize> =
        modules.iter().map(|m| m.lock().unwrap()).filter(|m| m.loads > 0).map(|m| m.dev).collect();
    for (t, m) in modules.iter().enumerate() {
        let m = m.lock().unwrap();
        let mapped = is_mapped(t);
        assert_eq!(mapped, m.loads > 0, "{when}: module {t} mapped: {mapped}, loads {}", m.loads);
        if m.loads > 0 {
            want.insert(m.reg);
            want_devs += 1 + if DEDUP_DEVICES { 0 } else { m.extra_devs };
        } else {
            for d in m.old_devs.iter().filter(|d| !live_devs.contains(d)) {
                assert!(!dev_set.contains(d), "{when}: device {d:#x} of unloaded module {t} still listed");
            }
        }
    }
    assert_eq!(reg_set, want, "{when}: regs listed");
    assert_eq!(devs.len(), want_devs, "{when}: devices listed: {devs:x?}");
    assert_eq!(dev_set.contains(&test_dev), test_registered, "{when}: TEST device listed");
    // SAFETY: listed regs and devices are live.
    unsafe {
        for &d in &devs {
            let reg = wsp_ggml_backend_dev_backend_reg(d as ggml_backend_dev_t) as usize;
            assert!(reg_set.contains(&reg), "{when}: device {d:#x} listed, its reg {reg:#x} is not");
        }
        for &r in &regs {
            for i in 0..wsp_ggml_backend_reg_dev_count(as_reg(r)) {
                let d = wsp_ggml_backend_reg_dev_get(as_reg(r), i) as usize;
                assert!(dev_set.contains(&d), "{when}: reg {r:#x} listed, its device {d:#x} is not");
            }
        }
    }
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let (n_threads, rounds) = decode(&mut u)?;
    let modules: Vec<Mutex<Module>> = (0..n_threads).map(|_| Mutex::default()).collect();
    let test_registered = AtomicBool::new(false);
    let barrier = Barrier::new(n_threads + 1);
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..n_threads)
            .map(|t| {
                let (rounds, modules, barrier, test_registered) = (&rounds, &modules, &barrier, &test_registered);
                scope.spawn(move || {
                    for ops in rounds {
                        barrier.wait();
                        step(t, ops[t], &mut modules[t].lock().unwrap(), test_registered);
                        barrier.wait();
                    }
                })
            })
            .collect();
        for (r, _) in rounds.iter().enumerate() {
            barrier.wait();
            barrier.wait();
            check(&format!("after round {r}"), &modules, test_registered.load(Ordering::SeqCst));
        }
        // Joined, not left to the scope: the scope returns once each thread's closure is done,
        // while the thread still runs its thread-local destructors, and glibc frees the node
        // that __cxa_thread_atexit_impl allocated for them (32 bytes, one per thread-local with
        // a destructor, here Rust std's own) only then. A thread still exiting when libFuzzer's
        // leak check runs shows that node as a leak: join waits for the thread's end.
        for thread in threads {
            thread.join().unwrap();
        }
    });
    // Back to the start.
    for m in &modules {
        let mut m = m.lock().unwrap();
        while m.loads > 0 {
            // SAFETY: the reg of a loaded module.
            unsafe { wsp_ggml_backend_unload(as_reg(m.reg)) };
            m.loads -= 1;
        }
    }
    if test_registered.swap(false, Ordering::SeqCst) {
        // SAFETY: the fixture's static reg.
        unsafe { wsp_ggml_backend_unload(test_backend_reg()) };
    }
    check("at the end", &modules, false);
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    init();
    let _ = run(data);
});
