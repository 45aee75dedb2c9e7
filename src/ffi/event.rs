//! Exports: events.

use super::{arg, named, ToC};
use crate::abi::*;

/// NULL for a NULL device or a device without events, as in the reference.
///
/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_event_new(device: ggml_backend_dev_t) -> ggml_backend_event_t {
    arg!(device, optional).and_then(|device| device.event_new()).to_c()
}

/// NULL is ignored.
///
/// # Safety
/// `event` is NULL or a live event, not used afterwards.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_event_free(event: ggml_backend_event_t) {
    if let Some(event) = arg!(event, optional) {
        event.free(FN);
    }
}

/// # Safety
/// `event` and `backend` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_event_record(event: ggml_backend_event_t, backend: ggml_backend_t) {
    let event = arg!(event);
    arg!(backend).event_record(FN, event)
}

/// # Safety
/// `event` is NULL or a live event.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_event_synchronize(event: ggml_backend_event_t) {
    arg!(event).synchronize(FN)
}

/// # Safety
/// `backend` and `event` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_event_wait(backend: ggml_backend_t, event: ggml_backend_event_t) {
    let event = arg!(event);
    arg!(backend).event_wait(FN, event)
}
