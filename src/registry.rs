//! The backend registry: which regs and devices exist, lookups by index, name and type, and
//! the convenience initialisers. Unlike the reference's unlocked function-local static, the
//! registry is behind a mutex, so registration, loading, unloading and enumeration may run on
//! many threads at once. Calls into backends (names, types, device lists) happen outside the
//! lock, so a backend that calls back into the registry cannot deadlock it; lookups that make
//! such calls hold the read side of `BACKEND_CALLS`, which unload waits on before a module is
//! closed, so that a lookup never runs code that another thread just unmapped.

use crate::abi::*;
use crate::device::*;
use crate::ggml::{c_str_lossy, fatal, log_error};
use crate::loader::Module;
use crate::sync::{StaticMutex, StaticMutexGuard, StaticRwLock, StaticRwLockGuard};
use std::ffi::{c_char, CStr};

/// A registered reg and, when it came from a dynamic library, the open library.
pub struct Entry {
    pub reg: RegHandle,
    pub module: Option<Module>,
}

/// Registry handles are C pointers owned by their backends; the registry only stores them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RegHandle(pub wsp_ggml_backend_reg_t);
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DevHandle(pub wsp_ggml_backend_dev_t);
// SAFETY: the pointers are only compared and handed back to C; the objects behind them are
// owned by their backends, which the ggml API requires to outlive their registration.
unsafe impl Send for RegHandle {}
unsafe impl Send for DevHandle {}

/// The registry's plain data: regs in registration order, devices in registration order with
/// the reg they belong to (None for devices registered on their own).
#[derive(Default)]
pub struct Registry {
    backends: Vec<Entry>,
    devices: Vec<(DevHandle, Option<RegHandle>)>,
    /// Whether the statically linked backends were registered (on first use).
    started: bool,
}

impl Registry {
    pub const fn new() -> Self {
        Registry { backends: Vec::new(), devices: Vec::new(), started: false }
    }

    pub fn contains(&self, reg: RegHandle) -> bool {
        self.backends.iter().any(|e| e.reg == reg)
    }

    /// Adds a reg with its devices (queried by the caller, outside the lock).
    pub fn add_backend(&mut self, reg: RegHandle, devices: &[DevHandle], module: Option<Module>) {
        self.backends.push(Entry { reg, module });
        self.devices.extend(devices.iter().map(|&d| (d, Some(reg))));
    }

    pub fn add_device(&mut self, device: DevHandle) {
        self.devices.push((device, None));
    }

    /// Removes a reg and every device it registered; returns its entry (so that a module is
    /// closed after the lock is released), or None when the reg is unknown.
    pub fn remove_backend(&mut self, reg: RegHandle) -> Option<Entry> {
        let index = self.backends.iter().position(|e| e.reg == reg)?;
        self.devices.retain(|&(_, owner)| owner != Some(reg));
        Some(self.backends.remove(index))
    }

    pub fn regs(&self) -> Vec<RegHandle> {
        self.backends.iter().map(|e| e.reg).collect()
    }

    pub fn devices(&self) -> Vec<DevHandle> {
        self.devices.iter().map(|&(d, _)| d).collect()
    }

    pub fn reg_at(&self, index: usize) -> Option<RegHandle> {
        self.backends.get(index).map(|e| e.reg)
    }

    pub fn device_at(&self, index: usize) -> Option<DevHandle> {
        self.devices.get(index).map(|&(d, _)| d)
    }

    pub fn reg_count(&self) -> usize {
        self.backends.len()
    }

    pub fn device_count(&self) -> usize {
        self.devices.len()
    }
}

#[cfg(feature = "cpu")]
extern "C" {
    // whisper.rn's CPU backend (ggml-cpu.cpp). A strong reference on purpose: it is what pulls
    // the CPU backend's archive member into a static link.
    fn wsp_ggml_backend_cpu_reg() -> wsp_ggml_backend_reg_t;
}

/// The process-wide registry; the statically linked backends are registered on first use.
pub fn registry() -> StaticMutexGuard<Registry> {
    static REGISTRY: StaticMutex<Registry> = StaticMutex::new(Registry::new());
    let mut registry = REGISTRY.lock();
    if !registry.started {
        registry.started = true;
        #[cfg(feature = "cpu")]
        // SAFETY: the CPU backend's reg is a static object that lives as long as the process.
        unsafe {
            let reg = RegHandle(wsp_ggml_backend_cpu_reg());
            if !reg.0.is_null() {
                registry.add_backend(reg, &reg_devices(reg), None);
            }
        }
    }
    registry
}

/// Read side: held by lookups while they call into registered backends outside the registry
/// lock. Write side: taken by unload, after the reg left the registry and before its module is
/// closed, to wait for lookups that may still be running its code.
static BACKEND_CALLS: StaticRwLock = StaticRwLock::new();

/// Keeps every registered backend's code mapped while the guard lives.
pub fn calling_backends() -> StaticRwLockGuard {
    BACKEND_CALLS.read()
}

/// Returns once no lookup that started before it is still calling into a backend.
pub fn wait_for_backend_calls() {
    drop(BACKEND_CALLS.write());
}

/// Asks a reg for its devices (without holding the registry lock).
///
/// # Safety
/// `reg` is a live reg.
pub unsafe fn reg_devices(reg: RegHandle) -> Vec<DevHandle> {
    let count = wsp_ggml_backend_reg_dev_count(reg.0);
    (0..count).map(|i| DevHandle(wsp_ggml_backend_reg_dev_get(reg.0, i))).collect()
}

/// Registers a reg and its devices; returns false when it was already registered.
///
/// # Safety
/// `reg` is a live reg.
pub unsafe fn register_backend(reg: RegHandle, module: Option<Module>) -> bool {
    let devices = reg_devices(reg);
    let mut registry = registry();
    if registry.contains(reg) {
        return false;
    }
    registry.add_backend(reg, &devices, module);
    true
}

/// Registers a reg and its devices. NULL is ignored, as in the reference; registering the
/// same reg twice keeps one registration.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_register(reg: wsp_ggml_backend_reg_t) {
    if !reg.is_null() {
        register_backend(RegHandle(reg), None);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_device_register(device: wsp_ggml_backend_dev_t) {
    const FN: &str = "wsp_ggml_backend_device_register";
    if device.is_null() {
        log_error!("{FN}: device is NULL\n");
        return;
    }
    registry().add_device(DevHandle(device));
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_count() -> usize {
    registry().reg_count()
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_get(index: usize) -> wsp_ggml_backend_reg_t {
    entry_at("wsp_ggml_backend_reg_get", "regs", index, |r| (r.reg_at(index), r.reg_count())).0
}

/// NULL when no reg has that name (and, with a log line, for a NULL name).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_by_name(name: *const c_char) -> wsp_ggml_backend_reg_t {
    let _calls = calling_backends();
    let regs = registry().regs();
    find_named("wsp_ggml_backend_reg_by_name", name, regs, |reg| wsp_ggml_backend_reg_name(reg.0))
        .map_or(std::ptr::null_mut(), |reg| reg.0)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_count() -> usize {
    registry().device_count()
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_get(index: usize) -> wsp_ggml_backend_dev_t {
    entry_at("wsp_ggml_backend_dev_get", "devices", index, |r| (r.device_at(index), r.device_count())).0
}

/// NULL when no device has that name (and, with a log line, for a NULL name).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_by_name(name: *const c_char) -> wsp_ggml_backend_dev_t {
    let _calls = calling_backends();
    device_named(name)
}

/// `wsp_ggml_backend_dev_by_name` for callers that hold `calling_backends()`.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
unsafe fn device_named(name: *const c_char) -> wsp_ggml_backend_dev_t {
    let devices = registry().devices();
    find_named("wsp_ggml_backend_dev_by_name", name, devices, |dev| wsp_ggml_backend_dev_name(dev.0))
        .map_or(std::ptr::null_mut(), |dev| dev.0)
}

/// The registry entry `lookup` finds at `index`, or an abort saying how many there are.
fn entry_at<T>(func: &str, what: &str, index: usize, lookup: impl FnOnce(&Registry) -> (Option<T>, usize)) -> T {
    let (entry, count) = lookup(&registry());
    match entry {
        Some(entry) => entry,
        None => fatal!("{func}: index {index} out of range ({count} {what} registered)"),
    }
}

/// The first candidate whose name matches `name` ASCII case-insensitively, as the reference
/// compares. The names are asked outside the registry lock.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `name_of` returns NULL or such strings.
unsafe fn find_named<T: Copy>(func: &str, name: *const c_char, candidates: Vec<T>, name_of: impl Fn(T) -> *const c_char) -> Option<T> {
    if name.is_null() {
        log_error!("{func}: name is NULL\n");
        return None;
    }
    let wanted = CStr::from_ptr(name).to_bytes();
    candidates.into_iter().find(|&c| {
        let candidate = name_of(c);
        !candidate.is_null() && CStr::from_ptr(candidate).to_bytes().eq_ignore_ascii_case(wanted)
    })
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_by_type(r#type: wsp_ggml_backend_dev_type) -> wsp_ggml_backend_dev_t {
    let _calls = calling_backends();
    device_of_type(r#type)
}

/// The first registered device of a type, or NULL.
///
/// # Safety
/// Registered devices are live; the caller holds `calling_backends()`.
unsafe fn device_of_type(r#type: wsp_ggml_backend_dev_type) -> wsp_ggml_backend_dev_t {
    let devices = registry().devices();
    devices
        .into_iter()
        .find(|dev| wsp_ggml_backend_dev_type(dev.0) == r#type)
        .map_or(std::ptr::null_mut(), |dev| dev.0)
}

/// Initialises a backend on `device`, or NULL when there is no device.
///
/// # Safety
/// `device` is NULL or live; `params` is NULL or a string.
unsafe fn init_on(device: wsp_ggml_backend_dev_t, params: *const c_char) -> wsp_ggml_backend_t {
    if device.is_null() {
        return std::ptr::null_mut();
    }
    wsp_ggml_backend_dev_init(device, params)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_init_by_name(name: *const c_char, params: *const c_char) -> wsp_ggml_backend_t {
    // the device's module must stay mapped from the lookup through its init
    let _calls = calling_backends();
    init_on(device_named(name), params)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_init_by_type(r#type: wsp_ggml_backend_dev_type, params: *const c_char) -> wsp_ggml_backend_t {
    let _calls = calling_backends();
    init_on(device_of_type(r#type), params)
}

/// A GPU device if there is one, else the CPU device, else NULL.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_init_best() -> wsp_ggml_backend_t {
    let _calls = calling_backends();
    let mut device = device_of_type(wsp_ggml_backend_dev_type::WSP_GGML_BACKEND_DEVICE_TYPE_GPU);
    if device.is_null() {
        device = device_of_type(wsp_ggml_backend_dev_type::WSP_GGML_BACKEND_DEVICE_TYPE_CPU);
    }
    init_on(device, std::ptr::null())
}

/// A reg's name for log lines.
///
/// # Safety
/// `reg` is live.
pub unsafe fn reg_name_lossy(reg: RegHandle) -> String {
    c_str_lossy(wsp_ggml_backend_reg_name(reg.0)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Handles that are only compared, never dereferenced: addresses without provenance (so
    // that Miri's strict-provenance checks have nothing to say).
    fn reg(n: usize) -> RegHandle {
        RegHandle(std::ptr::without_provenance_mut(n))
    }
    fn dev(n: usize) -> DevHandle {
        DevHandle(std::ptr::without_provenance_mut(n))
    }

    #[test]
    fn removing_a_reg_removes_exactly_its_devices_and_keeps_order() {
        let mut r = Registry::default();
        r.add_backend(reg(1), &[dev(10), dev(11)], None);
        r.add_device(dev(20));
        r.add_backend(reg(2), &[dev(30)], None);
        assert_eq!(r.devices(), vec![dev(10), dev(11), dev(20), dev(30)]);
        assert!(r.remove_backend(reg(1)).is_some());
        assert_eq!(r.regs(), vec![reg(2)]);
        assert_eq!(r.devices(), vec![dev(20), dev(30)]);
        assert!(r.remove_backend(reg(1)).is_none(), "a second removal finds nothing");
    }

    #[test]
    fn indices_past_the_end_are_none() {
        let mut r = Registry::default();
        r.add_backend(reg(1), &[dev(10)], None);
        assert_eq!(r.reg_at(0), Some(reg(1)));
        assert_eq!(r.reg_at(1), None);
        assert_eq!(r.device_at(1), None);
    }
}
