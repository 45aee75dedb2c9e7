//! Events: dispatch to the device (create, free, wait on the host) and to the backend (record
//! on a stream, make a stream wait).

use crate::abi::*;
use crate::ffi::arg;
use crate::ggml::{deref, required};

/// NULL for a NULL device or a device without events, as in the reference.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_event_new(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_event_t {
    match device.as_ref().and_then(|d| d.iface.event_new) {
        Some(event_new) => event_new(device),
        None => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_event_free(event: wsp_ggml_backend_event_t) {
    const FN: &str = "wsp_ggml_backend_event_free";
    if let Some(e) = event.as_ref() {
        let device = e.device;
        required(deref(device, FN, "event->device").iface.event_free, FN, "event_free")(device, event);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_event_record(event: wsp_ggml_backend_event_t, backend: wsp_ggml_backend_t) {
    const FN: &str = "wsp_ggml_backend_event_record";
    arg!(event);
    required(arg!(backend).iface.event_record, FN, "event_record")(backend, event)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_event_synchronize(event: wsp_ggml_backend_event_t) {
    const FN: &str = "wsp_ggml_backend_event_synchronize";
    event_synchronize(FN, event);
}

/// # Safety
/// `event` is NULL or a live event.
pub unsafe fn event_synchronize(func: &str, event: wsp_ggml_backend_event_t) {
    let device = deref(event, func, "event").device;
    required(deref(device, func, "event->device").iface.event_synchronize, func, "event_synchronize")(device, event)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_event_wait(backend: wsp_ggml_backend_t, event: wsp_ggml_backend_event_t) {
    const FN: &str = "wsp_ggml_backend_event_wait";
    arg!(event);
    required(arg!(backend).iface.event_wait, FN, "event_wait")(backend, event)
}
