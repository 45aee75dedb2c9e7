//! The one way C arguments become handles, for the exports (`crate::ffi`) and for the
//! interface callbacks that Rust implements (the CPU buffer's, the meta backend's): [`FromC`]
//! and the [`arg!`] forms, and [`ToC`] for results.

use super::{Backend, Buffer, BufferType, CellHandle, Device, Event, HeldInCell, Reg};
use crate::abi::*;
use crate::handle::{Graph, Tensor};
use core::ffi::{c_char, CStr};

/// A C argument that may be NULL, and what it stands for in Rust.
pub trait FromC {
    type Rust;
    /// # Safety
    /// `self` is NULL or points to a live object of its type.
    unsafe fn into_rust(self) -> Option<Self::Rust>;
}

/// A Rust result as C receives it (NULL for None).
pub trait ToC {
    type C;
    fn to_c(self) -> Self::C;
}

/// The conversions of the handle types, both ways.
macro_rules! handle_conversions {
    ($($raw:ty => $handle:ty),* $(,)?) => {$(
        impl FromC for $raw {
            type Rust = $handle;
            #[inline(always)]
            unsafe fn into_rust(self) -> Option<$handle> {
                // SAFETY: the caller's promise is from_raw's.
                unsafe { <$handle>::from_raw(self as _) }
            }
        }
        impl ToC for Option<$handle> {
            type C = $raw;
            #[inline(always)]
            fn to_c(self) -> $raw {
                self.map_or(core::ptr::null_mut(), |h| h.as_ptr() as _)
            }
        }
    )*};
}

handle_conversions!(
    ggml_backend_t => Backend,
    ggml_backend_buffer_t => Buffer,
    ggml_backend_buffer_type_t => BufferType,
    ggml_backend_dev_t => Device,
    ggml_backend_event_t => Event,
    ggml_backend_reg_t => Reg,
    *mut ggml_tensor => Tensor,
    *mut ggml_cgraph => Graph,
);

impl FromC for *const ggml_tensor {
    type Rust = Tensor;
    #[inline(always)]
    unsafe fn into_rust(self) -> Option<Tensor> {
        // SAFETY: the caller's promise is from_raw's.
        unsafe { Tensor::from_raw(self) }
    }
}

impl FromC for *const c_char {
    type Rust = &'static CStr;
    unsafe fn into_rust(self) -> Option<&'static CStr> {
        // SAFETY: NULL or a NUL-terminated string, which the export only uses during the call.
        (!self.is_null()).then(|| unsafe { CStr::from_ptr(self) })
    }
}

impl FromC for *mut ggml_backend_dev_props {
    type Rust = &'static mut ggml_backend_dev_props;
    unsafe fn into_rust(self) -> Option<Self::Rust> {
        // SAFETY: NULL or a writable struct, which the export only uses during the call.
        unsafe { self.as_mut() }
    }
}

/// A ggml context (the meta backend's exports take one).
#[cfg(meta)]
impl FromC for *mut ggml_context {
    type Rust = crate::handle::Context;
    unsafe fn into_rust(self) -> Option<Self::Rust> {
        // SAFETY: the caller's promise is from_raw's.
        unsafe { crate::handle::Context::from_raw(self) }
    }
}

/// An object held in a cell (the scheduler).
impl<C: HeldInCell> FromC for *mut C {
    type Rust = CellHandle<C>;
    #[inline(always)]
    unsafe fn into_rust(self) -> Option<CellHandle<C>> {
        // SAFETY: the caller's promise is from_raw's.
        unsafe { CellHandle::from_raw(self) }
    }
}

impl<C: HeldInCell> ToC for Option<CellHandle<C>> {
    type C = *mut C;
    #[inline(always)]
    fn to_c(self) -> *mut C {
        self.map_or(core::ptr::null_mut(), |h| h.as_ptr())
    }
}

/// An array the caller fills in (its length is the export's to know).
#[cfg(sched_reserve_size)]
impl FromC for *mut usize {
    type Rust = core::ptr::NonNull<usize>;
    unsafe fn into_rust(self) -> Option<Self::Rust> {
        core::ptr::NonNull::new(self)
    }
}

/// Optional C function pointers (callbacks).
impl<F: Copy> FromC for Option<F> {
    type Rust = F;
    unsafe fn into_rust(self) -> Option<F> {
        self
    }
}

/// A C array of `n` values of a `FromC` type: None for a NULL array, else each value
/// converted (None where it is NULL).
///
/// # Safety
/// `array` is NULL or holds `n` values, each NULL or live.
pub unsafe fn from_c_array<P: FromC + Copy>(
    array: *const P,
    n: usize,
) -> Result<Option<Vec<Option<P::Rust>>>, OutOfMemory> {
    if array.is_null() {
        return Ok(None);
    }
    // SAFETY: a non-NULL array of `n` values (the caller's promise).
    let values = unsafe { core::slice::from_raw_parts(array, n) };
    // SAFETY: each value is NULL or live (the caller's promise).
    Ok(Some(try_collect(values.iter().map(|&p| unsafe { p.into_rust() }))?))
}

/// Converts an argument `p` of an export, or of an interface callback that Rust implements
/// (the function is marked `#[named]` or `#[callback(EXPORT)]`, which define `FN`, the name its
/// messages give):
/// - `arg!(p)`: NULL returns the function's error value with "FN: p is NULL" in ggml's log, or
///   aborts with that message in a function that returns nothing
///   ([`ErrorValue`](crate::base::report::ErrorValue));
/// - `arg!(p, optional)`: an `Option`, for arguments where NULL has a meaning;
/// - `arg!(p[n])`: a C array of `n` handles as a `Vec`; a NULL array (when `n > 0`) is refused as
///   `arg!(p)` is, a NULL element with "FN: p\[i\] is NULL";
/// - `arg!(p[n], optional)`: None for a NULL array, else each element as an `Option`.
macro_rules! arg {
    ($p:ident) => {
        // SAFETY: every pointer argument of an export is NULL or live (its # Safety section),
        // and C calls an interface entry with live arguments of its object.
        match unsafe { $crate::handle::FromC::into_rust($p) } {
            Some(converted) => converted,
            None => return $crate::base::report::ErrorValue::null_argument(FN, stringify!($p)),
        }
    };
    ($p:ident, optional) => {
        // SAFETY: a pointer argument that may be NULL, else live (the # Safety section).
        unsafe { $crate::handle::FromC::into_rust($p) }
    };
    ($p:ident[$n:expr]) => {
        match $crate::handle::arg!($p[$n], optional) {
            Some(values) => {
                if let Some(i) = values.iter().position(Option::is_none) {
                    $crate::base::report::refuse!("{FN}: {}[{i}] is NULL", stringify!($p));
                }
                values.into_iter().flatten().collect::<alloc::vec::Vec<_>>()
            }
            None if $n == 0 => alloc::vec::Vec::new(),
            None => return $crate::base::report::ErrorValue::null_argument(FN, stringify!($p)),
        }
    };
    ($p:ident[$n:expr], optional) => {
        // SAFETY: an array argument is NULL or holds `n` values, each NULL or live (the
        // # Safety section).
        match unsafe { $crate::handle::from_c_array($p, $n) } {
            Ok(values) => values,
            Err($crate::base::fallible::OutOfMemory) => $crate::base::report::refuse!("{FN}: out of memory"),
        }
    };
}
use crate::base::fallible::{try_collect, OutOfMemory};
use alloc::vec::Vec;
pub(crate) use arg;
