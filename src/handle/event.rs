//! `ggml_backend_event`: a point in a backend's queue. Events are made, freed and waited
//! for on the host by their device, recorded and waited for on a stream by a backend.

use super::{handle, Device};
use crate::abi::*;
use crate::base::report::null_handle;

handle!(
    /// An event.
    Event => ggml_backend_event
);

impl Event {
    /// The device that made the event, or an abort naming the caller when it has none.
    pub fn device(self, caller: &str) -> Device {
        // SAFETY: an event's device is NULL or a live device.
        unsafe { Device::from_raw(self.raw().device) }.unwrap_or_else(|| null_handle(caller, "event->device"))
    }

    /// Releases the event; it must not be used afterwards.
    pub fn free(self, caller: &str) {
        self.device(caller).event_free(caller, self);
    }

    /// Waits on the host until the event has happened.
    pub fn synchronize(self, caller: &str) {
        self.device(caller).event_synchronize(caller, self);
    }
}
