//! The meta backend of whisper.rn 0.7: one device over several "simple" devices. A tensor of
//! a meta buffer is split along one axis between the simple devices (or MIRRORED on all, or a
//! PARTIAL sum over them) and stands for one tensor per simple device; a meta backend computes
//! a graph as per-device subgraphs, summing PARTIAL results between them.
//!
//! This module holds the meta device and buffer type ([`device_new`] and the interface tables
//! here), the meta buffer ([`buffer`]) and backend ([`backend`]); the split-state logic and the
//! placement of the subgraph cuts are plain data in [`split`] and [`schedule`]. The objects are C
//! structs whose context is a Rust value.

pub mod backend;
pub mod buffer;
pub mod schedule;
pub mod split;

use crate::abi::*;
use crate::base::report::{fatal, OrFatal};
use crate::handle::{arg, BufferType, Device, Tensor};
use std::ffi::{c_char, c_void, CString};
use std::sync::Mutex;
use wsp_ggml_backend_macros::callback;

/// What a meta device keeps: its simple devices, the application's split of static tensors,
/// and its strings.
pub struct MetaDevice {
    pub simple: Vec<Device>,
    get_split_state: ggml_backend_meta_get_split_state_t,
    userdata: *mut c_void,
    name: CString,
    description: CString,
    buffer_type: std::sync::OnceLock<BufferType>,
}

/// What a meta buffer type keeps: one simple buffer type per simple device.
pub struct MetaBufferType {
    pub simple: Vec<BufferType>,
    name: CString,
}

/// The meta devices made so far; one per distinct (devices, callback, userdata), as the
/// reference returns the same device for the same arguments. Devices live for the process.
static DEVICES: Mutex<Vec<SendDevice>> = Mutex::new(Vec::new());

struct SendDevice(Device);
// SAFETY: a meta device is immutable after creation (its buffer type is set once, under a
// OnceLock) and the C API lets any thread use a device.
unsafe impl Send for SendDevice {}

/// "Meta(a,b,..)" from the simple parts' names.
///
/// 0.7.4's reference builds the device's name and description and the buffer type's name from
/// a vector it has already moved from, so they read "Meta()" whatever the device spans; we name
/// the parts, as its code evidently intends and as its backend name does.
pub fn joined_name(parts: &[&[u8]]) -> CString {
    let mut name = b"Meta(".to_vec();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            name.push(b',');
        }
        name.extend(part.iter().filter(|&&c| c != 0));
    }
    name.push(b')');
    CString::new(name).unwrap_or_default()
}

fn c_bytes<'a>(ptr: *const c_char) -> &'a [u8] {
    if ptr.is_null() {
        return b"";
    }
    // SAFETY: names and descriptions of live devices and buffer types are NUL-terminated
    // strings that live as long as their objects.
    unsafe { std::ffi::CStr::from_ptr(ptr) }.to_bytes()
}

/// The meta device over `simple` (at most GGML_BACKEND_META_MAX_DEVICES): an existing one
/// for the same devices, callback and userdata, else a new one.
pub fn device_new(
    caller: &str,
    simple: Vec<Device>,
    get_split_state: ggml_backend_meta_get_split_state_t,
    userdata: *mut c_void,
) -> Device {
    crate::base::report::ensure!(
        simple.len() <= GGML_BACKEND_META_MAX_DEVICES,
        "{caller}: {} devices, at most {GGML_BACKEND_META_MAX_DEVICES}",
        simple.len()
    );
    let mut devices = DEVICES.lock().unwrap_or_else(|e| e.into_inner());
    let same = |d: &MetaDevice| {
        d.simple == simple
            && d.get_split_state.map(|f| f as usize) == get_split_state.map(|f| f as usize)
            && d.userdata == userdata
    };
    if let Some(existing) = devices.iter().find(|d| same(meta_device(caller, d.0))) {
        return existing.0;
    }
    let names: Vec<&[u8]> = simple.iter().map(|d| c_bytes(d.name(caller))).collect();
    let descriptions: Vec<&[u8]> = simple.iter().map(|d| c_bytes(d.description(caller))).collect();
    let context = MetaDevice {
        name: joined_name(&names),
        description: joined_name(&descriptions),
        simple,
        get_split_state,
        userdata,
        buffer_type: std::sync::OnceLock::new(),
    };
    let object = Box::new(ggml_backend_device {
        iface: DEVICE_IFACE,
        reg: std::ptr::null_mut(),
        context: Box::into_raw(Box::new(context)) as *mut c_void,
    });
    let device = Device::leak(object);
    devices.push(SendDevice(device));
    device
}

pub fn is_meta_device(device: Device) -> bool {
    device.is_named_by(dev_get_name)
}

/// The context of a meta device, or an abort naming the caller.
pub fn meta_device<'a>(caller: &str, device: Device) -> &'a MetaDevice {
    crate::base::report::ensure!(is_meta_device(device), "{caller}: device is not a meta device");
    // SAFETY: a meta device's context is the MetaDevice leaked by device_new, never freed.
    unsafe { &*(device.context() as *const MetaDevice) }
}

pub fn is_meta_buffer_type(buft: BufferType) -> bool {
    buft.is_named_by(buft_get_name)
}

/// The context of a meta buffer type, or an abort naming the caller.
pub fn meta_buffer_type<'a>(caller: &str, buft: BufferType) -> &'a MetaBufferType {
    crate::base::report::ensure!(is_meta_buffer_type(buft), "{caller}: buffer type is not a meta buffer type");
    // SAFETY: a meta buffer type's context is the MetaBufferType leaked by buffer_type.
    unsafe { &*(buft.context() as *const MetaBufferType) }
}

impl MetaDevice {
    /// The application's split state for a statically allocated tensor.
    pub fn static_split_state(&self, caller: &str, tensor: Tensor) -> split::SplitState {
        let Some(get_split_state) = self.get_split_state else {
            fatal!("{caller}: the meta device has no get_split_state callback for tensor {}", tensor.name())
        };
        // SAFETY: the application's callback, with a live tensor and its own userdata.
        unsafe { get_split_state(tensor.as_ptr(), self.userdata) }.into()
    }

    /// The device's buffer type: one per device, made on first use.
    fn buffer_type(&self, caller: &str, device: Device) -> BufferType {
        *self.buffer_type.get_or_init(|| {
            let simple: Vec<BufferType> =
                self.simple.iter().map(|d| d.buffer_type_checked(caller).or_fatal()).collect();
            let names: Vec<&[u8]> = simple.iter().map(|b| c_bytes(b.name(caller))).collect();
            let context = MetaBufferType { name: joined_name(&names), simple };
            let object = Box::new(ggml_backend_buffer_type {
                iface: BUFT_IFACE,
                device: device.as_ptr(),
                context: Box::into_raw(Box::new(context)) as *mut c_void,
            });
            BufferType::leak(object)
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The device and buffer-type interfaces: called by the backend layer or ggml with the meta
// device or buffer type they belong to.
// ---------------------------------------------------------------------------------------------

#[callback(ggml_backend_dev_name)]
unsafe extern "C" fn dev_get_name(dev: ggml_backend_dev_t) -> *const c_char {
    meta_device(FN, arg!(dev)).name.as_ptr()
}

#[callback(ggml_backend_dev_description)]
unsafe extern "C" fn dev_get_description(dev: ggml_backend_dev_t) -> *const c_char {
    meta_device(FN, arg!(dev)).description.as_ptr()
}

/// Free and total memory: the simple devices' added up.
fn memory(caller: &str, meta: &MetaDevice) -> (usize, usize) {
    meta.simple.iter().fold((0, 0), |(free, total), d| {
        let (mut f, mut t) = (0, 0);
        // SAFETY: two writable locals.
        unsafe { d.memory(caller, &mut f, &mut t) };
        (free + f, total + t)
    })
}

#[callback(ggml_backend_dev_memory)]
unsafe extern "C" fn dev_get_memory(dev: ggml_backend_dev_t, free: *mut usize, total: *mut usize) {
    let (f, t) = memory(FN, meta_device(FN, arg!(dev)));
    // SAFETY: the caller passes two writable pointers (the API's contract for get_memory).
    unsafe {
        *free = f;
        *total = t;
    }
}

#[callback(ggml_backend_dev_type)]
unsafe extern "C" fn dev_get_type(_: ggml_backend_dev_t) -> ggml_backend_dev_type {
    ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_META
}

#[callback(ggml_backend_dev_get_props)]
unsafe extern "C" fn dev_get_props(dev: ggml_backend_dev_t, props: *mut ggml_backend_dev_props) {
    let (meta, props) = (meta_device(FN, arg!(dev)), arg!(props));
    props.name = meta.name.as_ptr();
    props.description = meta.description.as_ptr();
    props.r#type = ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_META;
    props.device_id = std::ptr::null();
    (props.memory_free, props.memory_total) = memory(FN, meta);
    // Host buffers, buffers from host pointers and events are not implemented by the meta
    // device, whatever its parts can do.
    let mut caps = ggml_backend_dev_caps {
        r#async: true,
        host_buffer: false,
        buffer_from_host_ptr: false,
        events: false,
        #[cfg(mmap_support)]
        mmap_support: true,
    };
    for d in &meta.simple {
        let simple = d.props_value(FN);
        caps.r#async &= simple.caps.r#async;
        #[cfg(mmap_support)]
        {
            caps.mmap_support &= simple.caps.mmap_support;
        }
    }
    props.caps = caps;
}

#[callback(ggml_backend_dev_init)]
unsafe extern "C" fn dev_init_backend(dev: ggml_backend_dev_t, params: *const c_char) -> ggml_backend_t {
    let device = arg!(dev);
    // SAFETY: params is NULL or a string (the API's contract).
    unsafe { backend::new_backend(FN, device, meta_device(FN, device), params) }.as_ptr()
}

#[callback(ggml_backend_dev_buffer_type)]
unsafe extern "C" fn dev_get_buffer_type(dev: ggml_backend_dev_t) -> ggml_backend_buffer_type_t {
    let device = arg!(dev);
    meta_device(FN, device).buffer_type(FN, device).as_ptr()
}

/// The simple devices' host buffer type when they all have the same one, else NULL.
#[callback(ggml_backend_dev_host_buffer_type)]
unsafe extern "C" fn dev_get_host_buffer_type(dev: ggml_backend_dev_t) -> ggml_backend_buffer_type_t {
    let mut host = meta_device(FN, arg!(dev)).simple.iter().map(|d| d.host_buffer_type());
    match host.next() {
        Some(Some(first)) if host.all(|h| h == Some(first)) => first.as_ptr(),
        _ => std::ptr::null_mut(),
    }
}

#[callback(ggml_backend_dev_supports_op)]
unsafe extern "C" fn dev_supports_op(dev: ggml_backend_dev_t, op: *const ggml_tensor) -> bool {
    let (meta, op) = (meta_device(FN, arg!(dev)), arg!(op));
    meta.simple.iter().all(|d| d.supports_op(FN, op))
}

/// Only meta buffer types of a meta device over the same simple devices.
#[callback(ggml_backend_dev_supports_buft)]
unsafe extern "C" fn dev_supports_buft(dev: ggml_backend_dev_t, buft: ggml_backend_buffer_type_t) -> bool {
    let (meta, buft) = (meta_device(FN, arg!(dev)), arg!(buft));
    match buft.device() {
        Some(other) if is_meta_device(other) => meta_device(FN, other).simple == meta.simple,
        _ => false,
    }
}

const DEVICE_IFACE: ggml_backend_device_i = ggml_backend_device_i {
    get_name: Some(dev_get_name),
    get_description: Some(dev_get_description),
    get_memory: Some(dev_get_memory),
    get_type: Some(dev_get_type),
    get_props: Some(dev_get_props),
    init_backend: Some(dev_init_backend),
    get_buffer_type: Some(dev_get_buffer_type),
    get_host_buffer_type: Some(dev_get_host_buffer_type),
    buffer_from_host_ptr: None,
    supports_op: Some(dev_supports_op),
    supports_buft: Some(dev_supports_buft),
    offload_op: None,
    event_new: None,
    event_free: None,
    event_synchronize: None,
};

#[callback(ggml_backend_buft_name)]
unsafe extern "C" fn buft_get_name(buft: ggml_backend_buffer_type_t) -> *const c_char {
    meta_buffer_type(FN, arg!(buft)).name.as_ptr()
}

#[callback(ggml_backend_buft_alloc_buffer)]
unsafe extern "C" fn buft_alloc_buffer(buft: ggml_backend_buffer_type_t, size: usize) -> ggml_backend_buffer_t {
    let handle = arg!(buft);
    buffer::alloc_buffer(FN, handle, meta_buffer_type(FN, handle), size).as_ptr()
}

/// The largest of the simple alignments, which must all divide it.
#[callback(ggml_backend_buft_get_alignment)]
unsafe extern "C" fn buft_get_alignment(buft: ggml_backend_buffer_type_t) -> usize {
    let mut max = 1;
    for b in &meta_buffer_type(FN, arg!(buft)).simple {
        let alignment = b.alignment(FN);
        max = max.max(alignment);
        crate::base::report::ensure!(
            alignment != 0 && max % alignment == 0,
            "{FN}: simple buffer type alignments do not divide each other"
        );
    }
    max
}

#[callback(ggml_backend_buft_get_max_size)]
unsafe extern "C" fn buft_get_max_size(buft: ggml_backend_buffer_type_t) -> usize {
    meta_buffer_type(FN, arg!(buft)).simple.iter().map(|b| b.max_size()).min().unwrap_or(usize::MAX)
}

#[callback(ggml_backend_buft_get_alloc_size)]
unsafe extern "C" fn buft_get_alloc_size(buft: ggml_backend_buffer_type_t, tensor: *const ggml_tensor) -> usize {
    let (meta, tensor) = (meta_buffer_type(FN, arg!(buft)), arg!(tensor));
    meta.simple.iter().map(|b| b.alloc_size(tensor)).max().unwrap_or(0)
}

const BUFT_IFACE: ggml_backend_buffer_type_i = ggml_backend_buffer_type_i {
    get_name: Some(buft_get_name),
    alloc_buffer: Some(buft_alloc_buffer),
    get_alignment: Some(buft_get_alignment),
    get_max_size: Some(buft_get_max_size),
    get_alloc_size: Some(buft_get_alloc_size),
    // Never host memory, whatever the simple devices': a meta tensor's data address is a
    // placeholder, so nothing may read or write through it (the reference says host when every
    // simple device's is, and tensor_copy or a CPU backend then reads the placeholder).
    is_host: None,
};

#[cfg(test)]
mod tests {
    use super::joined_name;

    #[test]
    fn names_join_the_parts_in_meta_parentheses() {
        assert_eq!(joined_name(&[b"CPU", b"CPU"]).to_str().unwrap(), "Meta(CPU,CPU)");
        assert_eq!(joined_name(&[b"A"]).to_str().unwrap(), "Meta(A)");
        assert_eq!(joined_name(&[]).to_str().unwrap(), "Meta()");
    }
}
