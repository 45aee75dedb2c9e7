//! Exports: the backend registry and dynamic loading.

use super::{arg, named, ToC};
use crate::abi::*;
use crate::base::report::checked;
use crate::registry::{self, loader};
use core::ffi::c_char;

/// Registers a reg and its devices. NULL is ignored, as in the reference; registering the
/// same reg twice keeps one registration.
///
/// # Safety
/// `reg` is NULL or a live reg that outlives its registration.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_register(reg: ggml_backend_reg_t) {
    if let Some(reg) = arg!(reg, optional) {
        registry::register(reg);
    }
}

/// Registers a device on its own; `ggml_backend_unload` of its reg removes it too.
///
/// # Safety
/// `device` is NULL or a live device that outlives its registration.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_device_register(device: ggml_backend_dev_t) {
    match arg!(device, optional) {
        Some(device) => registry::register_device(device),
        None => crate::base::report::log_error!("{FN}: device is NULL\n"),
    }
}

/// # Safety
/// None: no arguments.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_count() -> usize {
    registry::reg_count()
}

/// # Safety
/// None: an index out of range aborts with a message.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_get(index: usize) -> ggml_backend_reg_t {
    Some(checked!(registry::reg_at(FN, index))).to_c()
}

/// NULL when no reg has that name (and, with a log line, for a NULL name).
///
/// # Safety
/// `name` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_by_name(name: *const c_char) -> ggml_backend_reg_t {
    registry::reg_by_name(FN, arg!(name)).to_c()
}

/// # Safety
/// None: no arguments.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_count() -> usize {
    registry::device_count()
}

/// # Safety
/// None: an index out of range aborts with a message.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_get(index: usize) -> ggml_backend_dev_t {
    Some(checked!(registry::device_at(FN, index))).to_c()
}

/// NULL when no device has that name (and, with a log line, for a NULL name).
///
/// # Safety
/// `name` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_by_name(name: *const c_char) -> ggml_backend_dev_t {
    registry::device_by_name(FN, arg!(name)).to_c()
}

/// The first registered device of a type, or NULL.
///
/// # Safety
/// None: any type is looked up.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_by_type(r#type: ggml_backend_dev_type) -> ggml_backend_dev_t {
    registry::device_by_type(FN, r#type).to_c()
}

/// A backend on the device named `name`, or NULL (with a log line for a NULL name).
///
/// # Safety
/// `name` and `params` are NULL or strings.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_init_by_name(name: *const c_char, params: *const c_char) -> ggml_backend_t {
    let name = arg!(name);
    // SAFETY: the caller's promise for `params`.
    unsafe { registry::init_by_name(FN, name, params) }.to_c()
}

/// A backend on the first device of a type, or NULL.
///
/// # Safety
/// `params` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_init_by_type(
    r#type: ggml_backend_dev_type,
    params: *const c_char,
) -> ggml_backend_t {
    // SAFETY: the caller's promise for `params`.
    unsafe { registry::init_by_type(FN, r#type, params) }.to_c()
}

/// A GPU device if there is one, else the CPU device, else NULL.
///
/// # Safety
/// None: no arguments.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_init_best() -> ggml_backend_t {
    registry::init_best(FN).to_c()
}

/// Loads one backend module; NULL (with a log line saying why) when it is not accepted. A
/// module loaded again is registered once and stays until unloaded as often as it was loaded.
///
/// # Safety
/// `path` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_load(path: *const c_char) -> ggml_backend_reg_t {
    loader::load(arg!(path).to_bytes()).to_c()
}

/// Unregisters a reg and every device whose reg it is, and closes its module once it has been
/// unloaded as often as loaded. Unknown regs (and NULL) are ignored, as in the reference.
///
/// # Safety
/// `reg` is NULL or a reg; it must not be used after its module is closed.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_unload(reg: ggml_backend_reg_t) {
    if let Some(reg) = arg!(reg, optional) {
        loader::unload(FN, reg);
    }
}

/// `ggml_backend_load_all_from_path(NULL)`.
///
/// # Safety
/// None: no arguments.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_load_all() {
    loader::load_all_from_path(symbol!("ggml_backend_load_all"), None);
}

/// Loads the best module of every known backend from `dir_path` (or, for NULL, from the
/// executable's and the current directory), then the module named by GGML_BACKEND_PATH.
///
/// # Safety
/// `dir_path` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_load_all_from_path(dir_path: *const c_char) {
    loader::load_all_from_path(FN, arg!(dir_path, optional).map(core::ffi::CStr::to_bytes));
}
