//! `ggml_backend_reg`: a backend registration, which lists devices and custom functions.

use super::{handle, required, Device};
use crate::abi::*;
use crate::base::report::checked;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ffi::{c_char, c_int, c_void, CStr};

handle!(
    /// A backend registration.
    Reg => ggml_backend_reg
);

// SAFETY: regs are static objects of their backends (or of their modules, which the registry
// keeps open while they are registered); the handle is only compared and handed back to C.
unsafe impl Send for Reg {}

impl Reg {
    pub fn api_version(self) -> c_int {
        self.raw().api_version
    }

    pub fn name(self, caller: &str) -> *const c_char {
        let get_name = checked!(required(self.raw().iface.get_name, caller, "get_name"));
        // SAFETY: the entry of a live reg, called with it.
        unsafe { get_name(self.as_ptr()) }
    }

    /// The name for log lines (a copy: the reg may go before the line is written).
    pub fn name_lossy(self, caller: &str) -> String {
        // SAFETY: a reg's name is NULL or a string that lives as long as the reg.
        unsafe { crate::handle::c_str_lossy(self.name(caller)) }.to_string()
    }

    pub fn device_count(self, caller: &str) -> usize {
        let get_device_count = checked!(required(self.raw().iface.get_device_count, caller, "get_device_count"));
        // SAFETY: the entry of a live reg, called with it.
        unsafe { get_device_count(self.as_ptr()) }
    }

    /// The device at `index`, which the caller knows to be below [`Self::device_count`]; None
    /// when the reg returns NULL.
    pub fn device(self, caller: &str, index: usize) -> Option<Device> {
        let get_device = checked!(required(self.raw().iface.get_device, caller, "get_device"));
        // SAFETY: the entry of a live reg, called with it; the result is NULL or a live device.
        unsafe { Device::from_raw(get_device(self.as_ptr(), index)) }
    }

    /// Every device of the reg, in its order.
    pub fn devices(self, caller: &str) -> Vec<Device> {
        (0..self.device_count(caller)).filter_map(|i| self.device(caller, i)).collect()
    }

    /// A custom function of the reg; NULL when it has none by that name (the entry is optional).
    pub fn proc_address(self, name: &CStr) -> *mut c_void {
        match self.raw().iface.get_proc_address {
            // SAFETY: the entry of a live reg, called with it, with a NUL-terminated string.
            Some(get_proc_address) => unsafe { get_proc_address(self.as_ptr(), name.as_ptr()) },
            None => core::ptr::null_mut(),
        }
    }
}
