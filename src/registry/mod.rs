//! The backend registry: which regs and devices exist, lookups by index, name and type, and
//! the convenience initialisers. Unlike the reference's unlocked function-local static, the
//! registry is behind a mutex, so registration, loading, unloading and enumeration may run on
//! many threads at once. Calls into backends (names, types, device lists) happen outside the
//! lock, so a backend that calls back into the registry cannot deadlock it; lookups that make
//! such calls hold the read side of `BACKEND_CALLS`, which unload waits on before a module is
//! closed, so that a lookup never runs code that another thread just unmapped.

pub mod builtin;
pub mod loader;
pub mod module;

use crate::abi::*;
use crate::base::fallible::{try_collect, OutOfMemory};
use crate::base::report::{log_debug, log_error, refused, Refused};
use crate::base::sync::{StaticMutex, StaticMutexGuard, StaticRwLock, StaticRwLockGuard};
use crate::handle::{Backend, Device, Reg};
use crate::registry::builtin::BUILTINS;
use crate::registry::module::Module;
use alloc::vec::Vec;
use core::ffi::{c_char, CStr};

/// A registered reg and, when it came from a dynamic library, the open library and how many
/// times it was loaded.
struct Entry {
    reg: Reg,
    module: Option<Module>,
    loads: usize,
}

/// The registry's plain data: regs in registration order, and devices in registration order
/// with the reg each names as its own (`device->reg`), by which unload removes them.
#[derive(Default)]
pub struct Registry {
    backends: Vec<Entry>,
    devices: Vec<(Device, Option<Reg>)>,
    /// Whether the statically linked backends were registered (on first use).
    started: bool,
}

/// What unloading a reg did.
#[derive(Debug, PartialEq, Eq)]
pub enum Unloaded {
    NotRegistered,
    /// The module was loaded more often than unloaded: it stays, with this many loads left.
    StillLoaded(usize),
    /// Removed with its devices.
    Removed,
}

impl Registry {
    pub const fn new() -> Self {
        Registry { backends: Vec::new(), devices: Vec::new(), started: false }
    }

    fn entry_mut(&mut self, reg: Reg) -> Option<&mut Entry> {
        self.backends.iter_mut().find(|e| e.reg == reg)
    }

    /// Adds a reg with its devices and their regs (queried by the caller, outside the lock).
    /// A reg already registered is not added again; a module that brings it again counts as
    /// one more load (and its second handle is closed). Returns whether the reg was new.
    pub fn add_backend(&mut self, reg: Reg, devices: &[(Device, Option<Reg>)], module: Option<Module>) -> bool {
        if let Some(entry) = self.entry_mut(reg) {
            if module.is_some() {
                entry.loads += 1;
            }
            return false;
        }
        self.backends.push(Entry { reg, loads: usize::from(module.is_some()), module });
        for &(device, device_reg) in devices {
            self.add_device(device, device_reg);
        }
        true
    }

    /// Adds a device; with `dedup_devices`, a device already registered is not added again.
    pub fn add_device(&mut self, device: Device, reg: Option<Reg>) {
        if cfg!(dedup_devices) && self.devices.iter().any(|&(known, _)| known == device) {
            return;
        }
        self.devices.push((device, reg));
    }

    /// Unregisters a reg once: a module loaded n times stays until its n-th unload. Removal
    /// takes every device whose reg is this one, also those registered on their own, and hands
    /// back the reg's module (to be closed outside the lock).
    pub fn unload(&mut self, reg: Reg) -> (Unloaded, Option<Module>) {
        let Some(index) = self.backends.iter().position(|e| e.reg == reg) else {
            return (Unloaded::NotRegistered, None);
        };
        let entry = &mut self.backends[index];
        if entry.loads > 1 {
            entry.loads -= 1;
            return (Unloaded::StillLoaded(entry.loads), None);
        }
        self.devices.retain(|&(_, owner)| owner != Some(reg));
        (Unloaded::Removed, self.backends.remove(index).module)
    }

    pub fn regs(&self) -> Result<Vec<Reg>, OutOfMemory> {
        try_collect(self.backends.iter().map(|e| e.reg))
    }

    pub fn devices(&self) -> Result<Vec<Device>, OutOfMemory> {
        try_collect(self.devices.iter().map(|&(d, _)| d))
    }

    pub fn reg_at(&self, index: usize) -> Option<Reg> {
        self.backends.get(index).map(|e| e.reg)
    }

    pub fn device_at(&self, index: usize) -> Option<Device> {
        self.devices.get(index).map(|&(d, _)| d)
    }

    pub fn reg_count(&self) -> usize {
        self.backends.len()
    }

    pub fn device_count(&self) -> usize {
        self.devices.len()
    }
}

/// The process-wide registry; the built-in backends are registered on first use, in the
/// release's order (see [`crate::registry::builtin`]).
fn registry() -> StaticMutexGuard<Registry> {
    static REGISTRY: StaticMutex<Registry> = StaticMutex::new(Registry::new());
    let mut registry = REGISTRY.lock();
    if !registry.started {
        registry.started = true;
        for builtin in BUILTINS {
            if builtin.is_disabled() {
                log_debug!(
                    "{} backend disabled by {} environment variable\n",
                    builtin.display_name(),
                    builtin.disabled_by.and_then(|v| v.to_str().ok()).unwrap_or_default()
                );
                continue;
            }
            // SAFETY: a built-in backend's reg function takes nothing and returns NULL or a
            // static object that lives as long as the process.
            if let Some(reg) = unsafe { Reg::from_raw((builtin.reg)()) } {
                registry.add_backend(reg, &devices_of(reg), None);
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
fn calling_backends() -> StaticRwLockGuard {
    BACKEND_CALLS.read()
}

/// A reg's devices and their regs (asked without holding the registry lock).
fn devices_of(reg: Reg) -> Vec<(Device, Option<Reg>)> {
    reg.devices(symbol!("ggml_backend_register")).into_iter().map(|d| (d, d.reg())).collect()
}

/// Registers a reg and its devices; registering the same reg again keeps one registration.
pub fn register(reg: Reg) {
    let devices = devices_of(reg);
    registry().add_backend(reg, &devices, None);
}

/// Registers the reg of a loaded module; false when it was registered already (the module then
/// counts one more load).
pub fn register_loaded(reg: Reg, module: Module) -> bool {
    let devices = devices_of(reg);
    registry().add_backend(reg, &devices, Some(module))
}

/// Registers a device on its own.
pub fn register_device(device: Device) {
    let reg = device.reg();
    registry().add_device(device, reg);
}

/// Unregisters a reg once (see [`Registry::unload`]). When it leaves the registry, lookups on
/// other threads that listed it before may be calling into it still: its module is closed
/// only after they have finished.
pub fn unload(reg: Reg) -> Unloaded {
    let (unloaded, module) = registry().unload(reg);
    if unloaded == Unloaded::Removed {
        drop(BACKEND_CALLS.write());
    }
    drop(module);
    unloaded
}

pub fn reg_count() -> usize {
    registry().reg_count()
}

pub fn device_count() -> usize {
    registry().device_count()
}

/// The reg at `index`, or the refusal naming the caller and how many there are.
pub fn reg_at(caller: &str, index: usize) -> Result<Reg, Refused> {
    let registry = registry();
    match registry.reg_at(index) {
        Some(reg) => Ok(reg),
        None => refused!("{caller}: index {index} out of range ({} regs registered)", registry.reg_count()),
    }
}

/// The device at `index`, or the refusal naming the caller and how many there are.
pub fn device_at(caller: &str, index: usize) -> Result<Device, Refused> {
    let registry = registry();
    match registry.device_at(index) {
        Some(device) => Ok(device),
        None => refused!("{caller}: index {index} out of range ({} devices registered)", registry.device_count()),
    }
}

/// Whether a name returned by a backend equals `wanted`, ASCII case-insensitively (as the
/// reference compares).
fn is_named(name: *const c_char, wanted: &CStr) -> bool {
    // SAFETY: backends return NULL or NUL-terminated names.
    !name.is_null() && unsafe { CStr::from_ptr(name) }.to_bytes().eq_ignore_ascii_case(wanted.to_bytes())
}

/// A list of the registry's, copied to be looked through outside its lock; none (with a log
/// line) without memory for the copy, so that the lookup finds nothing.
fn listed<T>(caller: &str, list: Result<Vec<T>, OutOfMemory>) -> Vec<T> {
    list.unwrap_or_else(|OutOfMemory| {
        log_error!("{caller}: out of memory listing the registry\n");
        Vec::new()
    })
}

/// The first reg named `name`.
pub fn reg_by_name(caller: &str, name: &CStr) -> Option<Reg> {
    let _calls = calling_backends();
    let regs = listed(caller, registry().regs());
    regs.into_iter().find(|reg| is_named(reg.name(caller), name))
}

/// The first device named `name`; the caller holds `calling_backends()`.
fn device_named(caller: &str, name: &CStr) -> Option<Device> {
    let devices = listed(caller, registry().devices());
    devices.into_iter().find(|device| is_named(device.name(caller), name))
}

/// The first registered device of a type; the caller holds `calling_backends()`.
fn device_of_type(caller: &str, device_type: ggml_backend_dev_type) -> Option<Device> {
    let devices = listed(caller, registry().devices());
    devices.into_iter().find(|device| device.device_type(caller) == device_type)
}

pub fn device_by_name(caller: &str, name: &CStr) -> Option<Device> {
    let _calls = calling_backends();
    device_named(caller, name)
}

pub fn device_by_type(caller: &str, device_type: ggml_backend_dev_type) -> Option<Device> {
    let _calls = calling_backends();
    device_of_type(caller, device_type)
}

/// A backend on `device`, or None when there is no device or it makes none.
///
/// # Safety
/// `params` is NULL or a NUL-terminated string.
unsafe fn init_on(caller: &str, device: Option<Device>, params: *const c_char) -> Option<Backend> {
    // SAFETY: the caller's promise.
    device.and_then(|device| unsafe { device.init_backend(caller, params) })
}

/// A backend on the device named `name`.
///
/// # Safety
/// `params` is NULL or a NUL-terminated string.
pub unsafe fn init_by_name(caller: &str, name: &CStr, params: *const c_char) -> Option<Backend> {
    // The device's module must stay mapped from the lookup through its init.
    let _calls = calling_backends();
    // SAFETY: the caller's promise.
    unsafe { init_on(caller, device_named(caller, name), params) }
}

/// A backend on the first device of a type.
///
/// # Safety
/// `params` is NULL or a NUL-terminated string.
pub unsafe fn init_by_type(caller: &str, device_type: ggml_backend_dev_type, params: *const c_char) -> Option<Backend> {
    let _calls = calling_backends();
    // SAFETY: the caller's promise.
    unsafe { init_on(caller, device_of_type(caller, device_type), params) }
}

/// A backend on a GPU device if there is one (0.5: else on an integrated GPU), else on the CPU
/// device.
pub fn init_best(caller: &str) -> Option<Backend> {
    use ggml_backend_dev_type::*;
    let _calls = calling_backends();
    let device = device_of_type(caller, GGML_BACKEND_DEVICE_TYPE_GPU);
    #[cfg(api_v2)]
    let device = device.or_else(|| device_of_type(caller, GGML_BACKEND_DEVICE_TYPE_IGPU));
    let device = device.or_else(|| device_of_type(caller, GGML_BACKEND_DEVICE_TYPE_CPU));
    // SAFETY: no parameters.
    unsafe { init_on(caller, device, core::ptr::null()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Handles that are only compared, never dereferenced: addresses without provenance (so
    // that Miri's strict-provenance checks have nothing to say).
    fn reg(n: usize) -> Reg {
        // SAFETY: never dereferenced.
        unsafe { Reg::from_raw(std::ptr::without_provenance_mut(n)) }.unwrap()
    }
    fn dev(n: usize) -> Device {
        // SAFETY: never dereferenced.
        unsafe { Device::from_raw(std::ptr::without_provenance_mut(n)) }.unwrap()
    }

    #[test]
    fn unloading_a_reg_removes_every_device_whose_reg_it_is_and_keeps_order() {
        let mut r = Registry::default();
        r.add_backend(reg(1), &[(dev(10), Some(reg(1))), (dev(11), Some(reg(1)))], None);
        r.add_device(dev(20), None);
        r.add_device(dev(21), Some(reg(1)));
        r.add_backend(reg(2), &[(dev(30), Some(reg(2)))], None);
        assert_eq!(r.devices().unwrap(), vec![dev(10), dev(11), dev(20), dev(21), dev(30)]);
        assert_eq!(r.unload(reg(1)).0, Unloaded::Removed);
        assert_eq!(r.regs().unwrap(), vec![reg(2)]);
        assert_eq!(r.devices().unwrap(), vec![dev(20), dev(30)], "dev 21 was registered on its own, but is reg 1's");
        assert_eq!(r.unload(reg(1)).0, Unloaded::NotRegistered, "a second unload finds nothing");
    }

    #[test]
    fn a_reg_registered_twice_is_listed_once() {
        let mut r = Registry::default();
        assert!(r.add_backend(reg(1), &[(dev(10), Some(reg(1)))], None));
        assert!(!r.add_backend(reg(1), &[(dev(10), Some(reg(1)))], None));
        assert_eq!((r.reg_count(), r.device_count()), (1, 1));
        assert_eq!(r.unload(reg(1)).0, Unloaded::Removed, "one unload removes a static registration");
    }

    #[test]
    fn indices_past_the_end_are_none() {
        let mut r = Registry::default();
        r.add_backend(reg(1), &[(dev(10), Some(reg(1)))], None);
        assert_eq!(r.reg_at(0), Some(reg(1)));
        assert_eq!(r.reg_at(1), None);
        assert_eq!(r.device_at(1), None);
    }
}
