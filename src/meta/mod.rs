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
use crate::base::fallible::{try_box, try_collect, try_vec, OutOfMemory};
use crate::base::report::{checked, log_error, refuse, refused, Refused};
use crate::base::sync::StaticMutex;
use crate::handle::{arg, Buffer, BufferType, Context, Device, Tensor};
use alloc::ffi::CString;
use core::cell::Cell;
use core::ffi::{c_char, c_void};
use wsp_ggml_backend_macros::callback;

/// Why the meta backend cannot do what C asked. An entry that returns a status tells the two
/// apart (FAILED, ALLOC_FAILED); the others give their error value for both.
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// Input it refuses, with the reason (which names the export and the cause).
    Refused(Refused),
    /// Memory it cannot get: from the heap, or (with the reason) from a simple buffer type.
    OutOfMemory(Option<Refused>),
}

impl From<Refused> for Failure {
    fn from(why: Refused) -> Failure {
        Failure::Refused(why)
    }
}

impl From<OutOfMemory> for Failure {
    fn from(_: OutOfMemory) -> Failure {
        Failure::OutOfMemory(None)
    }
}

impl Failure {
    /// The refusal `caller` reports, for an entry whose error value is the same for both.
    pub fn refusal(self, caller: &str) -> Refused {
        match self {
            Failure::Refused(why) | Failure::OutOfMemory(Some(why)) => why,
            Failure::OutOfMemory(None) => Refused(format!("{caller}: out of memory")),
        }
    }

    /// The status `caller` returns, with the reason in ggml's log.
    pub fn status(self, caller: &str) -> ggml_status {
        let status = match self {
            Failure::Refused(_) => ggml_status::GGML_STATUS_FAILED,
            Failure::OutOfMemory(_) => ggml_status::GGML_STATUS_ALLOC_FAILED,
        };
        let Refused(why) = self.refusal(caller);
        log_error!("{why}\n");
        status
    }
}

/// `failed!("fmt", args..)`: an `Err(Failure::Refused)` with the formatted reason.
macro_rules! failed {
    ($($arg:tt)*) => {
        Err($crate::meta::Failure::Refused($crate::base::report::Refused::new(format_args!($($arg)*))))
    };
}
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;
use failed;

/// State of a meta object's that Rust changes in place. [`Slot::with`] takes the value out for
/// its closure and puts it back, so there is no borrow for a call that re-enters the object to
/// fail on; the closures never call out to C, through which a call could re-enter.
#[derive(Default)]
pub struct Slot<T: Default>(Cell<T>);

impl<T: Default> Slot<T> {
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut value = self.0.take();
        let result = f(&mut value);
        self.0.set(value);
        result
    }
}

/// What a meta device keeps: its simple devices, the application's split of static tensors,
/// and its strings.
pub struct MetaDevice {
    pub simple: Vec<Device>,
    get_split_state: ggml_backend_meta_get_split_state_t,
    userdata: *mut c_void,
    name: CString,
    description: CString,
}

/// What a meta buffer type keeps: one simple buffer type per simple device, and its way of
/// allocating a context's tensors ([`buffer::alloc_ctx_tensors`]).
pub struct MetaBufferType {
    pub simple: Vec<BufferType>,
    name: CString,
    alloc_ctx_tensors: fn(&str, Context, BufferType) -> Result<Buffer, Failure>,
}

/// The meta devices made so far; one per distinct (devices, callback, userdata), as the
/// reference returns the same device for the same arguments. Devices live for the process.
/// Each has its buffer type once asked for (made once, kept here).
static DEVICES: StaticMutex<Vec<Registered>> = StaticMutex::new(Vec::new());

struct Registered {
    device: Device,
    meta: &'static MetaDevice,
    buffer_type: Option<BufferType>,
}
// SAFETY: a meta device is immutable after creation and the C API lets any thread use a device.
unsafe impl Send for Registered {}

/// The meta device over `simple`, `get_split_state` and `userdata`, if one was made.
fn registered(
    simple: &[Device],
    get_split_state: ggml_backend_meta_get_split_state_t,
    userdata: *mut c_void,
) -> Option<Device> {
    let devices = DEVICES.lock();
    devices.iter().find(|r| r.meta.is_over(simple, get_split_state, userdata)).map(|r| r.device)
}

/// "Meta(a,b,..)" from the simple parts' names.
///
/// 0.7.4's reference builds the device's name and description and the buffer type's name from
/// a vector it has already moved from, so they read "Meta()" whatever the device spans; we name
/// the parts, as its code evidently intends and as its backend name does.
pub fn joined_name(parts: &[&[u8]]) -> Result<CString, OutOfMemory> {
    // "Meta(", each part and a comma or ")", and the NUL that CString adds: allocated once.
    let mut name = try_vec(b"Meta(".len() + parts.iter().map(|p| p.len() + 1).sum::<usize>() + 2)?;
    name.extend_from_slice(b"Meta(");
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            name.push(b',');
        }
        name.extend(part.iter().filter(|&&c| c != 0));
    }
    name.push(b')');
    Ok(CString::new(name).unwrap_or_default())
}

fn c_bytes<'a>(ptr: *const c_char) -> &'a [u8] {
    if ptr.is_null() {
        return b"";
    }
    // SAFETY: names and descriptions of live devices and buffer types are NUL-terminated
    // strings that live as long as their objects.
    unsafe { core::ffi::CStr::from_ptr(ptr) }.to_bytes()
}

/// The meta device over `simple` (at most GGML_BACKEND_META_MAX_DEVICES, which the export
/// checks): an existing one for the same devices, callback and userdata, else a new one.
pub fn device_new(
    caller: &str,
    simple: Vec<Device>,
    get_split_state: ggml_backend_meta_get_split_state_t,
    userdata: *mut c_void,
) -> Result<Device, Failure> {
    if let Some(existing) = registered(&simple, get_split_state, userdata) {
        return Ok(existing);
    }
    // Made without the lock held: naming asks the simple devices, which may call back here.
    let names = try_collect(simple.iter().map(|d| c_bytes(d.name(caller))))?;
    let descriptions = try_collect(simple.iter().map(|d| c_bytes(d.description(caller))))?;
    let context = try_box(MetaDevice {
        name: joined_name(&names)?,
        description: joined_name(&descriptions)?,
        simple,
        get_split_state,
        userdata,
    })?;
    let mut object = try_box(ggml_backend_device {
        iface: DEVICE_IFACE,
        reg: core::ptr::null_mut(),
        context: core::ptr::null_mut(),
    })?;
    let mut devices = DEVICES.lock();
    // Another thread may have made the same device meanwhile: its one is kept, this one dropped.
    if let Some(existing) = devices.iter().find(|r| r.meta.is_over(&context.simple, get_split_state, userdata)) {
        return Ok(existing.device);
    }
    devices.try_reserve(1).map_err(OutOfMemory::from)?;
    let meta: &'static MetaDevice = Box::leak(context);
    object.context = meta as *const MetaDevice as *mut c_void;
    let device = Device::leak(object);
    devices.push(Registered { device, meta, buffer_type: None });
    Ok(device)
}

pub fn is_meta_device(device: Device) -> bool {
    device.is_named_by(dev_get_name)
}

/// The context of a meta device, or the refusal naming the caller (out of line, as
/// [`buffer::meta_buffer`] is).
#[inline(never)]
pub fn meta_device<'a>(caller: &str, device: Device) -> Result<&'a MetaDevice, Refused> {
    if !is_meta_device(device) {
        return refused!("{caller}: device is not a meta device");
    }
    // SAFETY: a meta device's context is the MetaDevice leaked by device_new, never freed.
    Ok(unsafe { &*(device.context() as *const MetaDevice) })
}

pub fn is_meta_buffer_type(buft: BufferType) -> bool {
    buft.is_named_by(buft_get_name)
}

/// The context of a meta buffer type, or the refusal naming the caller (out of line, as
/// [`meta_device`] is).
#[inline(never)]
pub fn meta_buffer_type<'a>(caller: &str, buft: BufferType) -> Result<&'a MetaBufferType, Refused> {
    if !is_meta_buffer_type(buft) {
        return refused!("{caller}: buffer type is not a meta buffer type");
    }
    // SAFETY: a meta buffer type's context is the MetaBufferType leaked by buffer_type.
    Ok(unsafe { &*(buft.context() as *const MetaBufferType) })
}

/// Allocates the tensors of `ctx` in a new meta buffer of `buft`. ggml-alloc calls this for
/// any meta buffer type, so every program links it; the meta buffer's code is reached only
/// through the buffer type's own pointer, and a program that makes no meta device (whisper.cpp,
/// llama.cpp) does not link it.
pub fn alloc_ctx_tensors(caller: &str, ctx: Context, buft: BufferType) -> Result<Buffer, Failure> {
    (meta_buffer_type(caller, buft)?.alloc_ctx_tensors)(caller, ctx, buft)
}

impl MetaDevice {
    fn is_over(
        &self,
        simple: &[Device],
        get_split_state: ggml_backend_meta_get_split_state_t,
        userdata: *mut c_void,
    ) -> bool {
        self.simple == simple
            && self.get_split_state.map(|f| f as usize) == get_split_state.map(|f| f as usize)
            && self.userdata == userdata
    }

    /// The application's split state for a statically allocated tensor.
    pub fn static_split_state(&self, caller: &str, tensor: Tensor) -> Result<split::SplitState, Refused> {
        let Some(get_split_state) = self.get_split_state else {
            return refused!("{caller}: the meta device has no get_split_state callback for tensor {}", tensor.name());
        };
        // SAFETY: the application's callback, with a live tensor and its own userdata.
        Ok(unsafe { get_split_state(tensor.as_ptr(), self.userdata) }.into())
    }

    /// The device's buffer type: one per device, made on first use.
    fn buffer_type(&self, caller: &str, device: Device) -> Result<BufferType, Failure> {
        let made = |devices: &[Registered]| devices.iter().find(|r| r.device == device).and_then(|r| r.buffer_type);
        if let Some(made) = made(&DEVICES.lock()) {
            return Ok(made);
        }
        let mut simple = try_vec(self.simple.len())?;
        for d in &self.simple {
            simple.push(d.buffer_type_checked(caller)?);
        }
        let names = try_collect(simple.iter().map(|b| c_bytes(b.name(caller))))?;
        let context = try_box(MetaBufferType {
            name: joined_name(&names)?,
            simple,
            alloc_ctx_tensors: buffer::alloc_ctx_tensors,
        })?;
        let mut object = try_box(ggml_backend_buffer_type {
            iface: BUFT_IFACE,
            device: device.as_ptr(),
            context: core::ptr::null_mut(),
        })?;
        // Two threads may both get here (the simple devices are asked unlocked): the first one's
        // is kept, the other's dropped unseen.
        let mut devices = DEVICES.lock();
        if let Some(made) = made(&devices) {
            return Ok(made);
        }
        let Some(registered) = devices.iter_mut().find(|r| r.device == device) else {
            return failed!("{caller}: device is not a registered meta device");
        };
        object.context = Box::leak(context) as *mut MetaBufferType as *mut c_void;
        let made = BufferType::leak(object);
        registered.buffer_type = Some(made);
        Ok(made)
    }
}

// ---------------------------------------------------------------------------------------------
// The device and buffer-type interfaces: called by the backend layer or ggml with the meta
// device or buffer type they belong to.
// ---------------------------------------------------------------------------------------------

#[callback(ggml_backend_dev_name)]
unsafe extern "C" fn dev_get_name(dev: ggml_backend_dev_t) -> *const c_char {
    checked!(meta_device(FN, arg!(dev))).name.as_ptr()
}

#[callback(ggml_backend_dev_description)]
unsafe extern "C" fn dev_get_description(dev: ggml_backend_dev_t) -> *const c_char {
    checked!(meta_device(FN, arg!(dev))).description.as_ptr()
}

/// Free and total memory: the simple devices' added up.
fn memory(caller: &str, meta: &MetaDevice) -> (usize, usize) {
    meta.simple.iter().fold((0, 0), |(free, total), d| {
        let (mut f, mut t) = (0, 0);
        // SAFETY: two writable locals.
        unsafe { d.memory(caller, &mut f, &mut t) };
        (free.saturating_add(f), total.saturating_add(t))
    })
}

#[callback(ggml_backend_dev_memory)]
unsafe extern "C" fn dev_get_memory(dev: ggml_backend_dev_t, free: *mut usize, total: *mut usize) {
    let (f, t) = memory(FN, checked!(meta_device(FN, arg!(dev))));
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
    let (meta, props) = (checked!(meta_device(FN, arg!(dev))), arg!(props));
    props.name = meta.name.as_ptr();
    props.description = meta.description.as_ptr();
    props.r#type = ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_META;
    props.device_id = core::ptr::null();
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
    let meta = checked!(meta_device(FN, device));
    // SAFETY: params is NULL or a string (the API's contract).
    let backend = unsafe { backend::new_backend(FN, device, meta, params) };
    checked!(backend.map_err(|failure| failure.refusal(FN))).as_ptr()
}

#[callback(ggml_backend_dev_buffer_type)]
unsafe extern "C" fn dev_get_buffer_type(dev: ggml_backend_dev_t) -> ggml_backend_buffer_type_t {
    let device = arg!(dev);
    let buffer_type = checked!(meta_device(FN, device)).buffer_type(FN, device);
    checked!(buffer_type.map_err(|failure| failure.refusal(FN))).as_ptr()
}

/// The simple devices' host buffer type when they all have the same one, else NULL.
#[callback(ggml_backend_dev_host_buffer_type)]
unsafe extern "C" fn dev_get_host_buffer_type(dev: ggml_backend_dev_t) -> ggml_backend_buffer_type_t {
    let mut host = checked!(meta_device(FN, arg!(dev))).simple.iter().map(|d| d.host_buffer_type());
    match host.next() {
        Some(Some(first)) if host.all(|h| h == Some(first)) => first.as_ptr(),
        _ => core::ptr::null_mut(),
    }
}

#[callback(ggml_backend_dev_supports_op)]
unsafe extern "C" fn dev_supports_op(dev: ggml_backend_dev_t, op: *const ggml_tensor) -> bool {
    let (meta, op) = (checked!(meta_device(FN, arg!(dev))), arg!(op));
    meta.simple.iter().all(|d| d.supports_op(FN, op))
}

/// Only meta buffer types of a meta device over the same simple devices.
#[callback(ggml_backend_dev_supports_buft)]
unsafe extern "C" fn dev_supports_buft(dev: ggml_backend_dev_t, buft: ggml_backend_buffer_type_t) -> bool {
    let (meta, buft) = (checked!(meta_device(FN, arg!(dev))), arg!(buft));
    match buft.device() {
        Some(other) if is_meta_device(other) => checked!(meta_device(FN, other)).simple == meta.simple,
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
    checked!(meta_buffer_type(FN, arg!(buft))).name.as_ptr()
}

#[callback(ggml_backend_buft_alloc_buffer)]
unsafe extern "C" fn buft_alloc_buffer(buft: ggml_backend_buffer_type_t, size: usize) -> ggml_backend_buffer_t {
    let handle = arg!(buft);
    let buffer = buffer::alloc_buffer(FN, handle, checked!(meta_buffer_type(FN, handle)), size);
    checked!(buffer.map_err(|failure| failure.refusal(FN))).as_ptr()
}

/// The largest of the simple alignments, which must all divide it.
#[callback(ggml_backend_buft_get_alignment)]
unsafe extern "C" fn buft_get_alignment(buft: ggml_backend_buffer_type_t) -> usize {
    let mut max = 1;
    for b in &checked!(meta_buffer_type(FN, arg!(buft))).simple {
        let alignment = b.alignment(FN);
        max = max.max(alignment);
        if alignment == 0 || max % alignment != 0 {
            refuse!("{FN}: simple buffer type alignments do not divide each other");
        }
    }
    max
}

#[callback(ggml_backend_buft_get_max_size)]
unsafe extern "C" fn buft_get_max_size(buft: ggml_backend_buffer_type_t) -> usize {
    checked!(meta_buffer_type(FN, arg!(buft))).simple.iter().map(|b| b.max_size()).min().unwrap_or(usize::MAX)
}

#[callback(ggml_backend_buft_get_alloc_size)]
unsafe extern "C" fn buft_get_alloc_size(buft: ggml_backend_buffer_type_t, tensor: *const ggml_tensor) -> usize {
    let (meta, tensor) = (checked!(meta_buffer_type(FN, arg!(buft))), arg!(tensor));
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
    use super::*;

    #[test]
    fn names_join_the_parts_in_meta_parentheses() {
        let name = |parts: &[&[u8]]| joined_name(parts).unwrap().into_string().unwrap();
        assert_eq!(name(&[b"CPU", b"CPU"]), "Meta(CPU,CPU)");
        assert_eq!(name(&[b"A"]), "Meta(A)");
        assert_eq!(name(&[]), "Meta()");
    }

    #[test]
    fn a_name_is_allocated_once() {
        let name = joined_name(&[b"CPU", b"GPU0"]).unwrap().into_bytes_with_nul();
        assert_eq!(name.capacity(), name.len());
    }

    #[test]
    fn a_failure_is_the_refusal_or_out_of_memory_naming_the_export() {
        let refused = Failure::from(Refused("FN: a softmax over rows split along axis 0".into()));
        assert_eq!(refused.refusal("FN").0, "FN: a softmax over rows split along axis 0");
        assert_eq!(Failure::from(OutOfMemory).refusal("FN").0, "FN: out of memory");
        let simple = Failure::OutOfMemory(Some(Refused("FN: a simple buffer allocation failed".into())));
        assert_eq!(simple.refusal("FN").0, "FN: a simple buffer allocation failed");
    }

    #[test]
    fn a_slot_gives_its_value_to_one_closure_at_a_time() {
        let slot: Slot<Vec<u32>> = Slot::default();
        slot.with(|v| v.push(1));
        // A nested use (which a closure never makes) sees an empty value, and cannot fail.
        let nested = slot.with(|v| {
            v.push(2);
            slot.with(|inner| inner.len())
        });
        assert_eq!((nested, slot.with(|v| v.clone())), (0, vec![1, 2]));
    }
}
