//! Typed handles over the C objects: `Copy` newtypes over `NonNull`, one per object type, each
//! with one method per entry of its interface table. They are the layer between the C boundary
//! (`crate::ffi`) and the logic: the only code besides the mirrors (`crate::abi`) that reads
//! the objects' fields, calls their interface entries, and knows the defaults of the optional
//! entries.
//!
//! A handle is made from a pointer that C hands over (`from_raw`, unsafe: the caller vouches
//! that it is NULL or live, which is the C API's contract); after that its methods are safe.
//! Methods that can meet a broken object (a mandatory entry left NULL) take the name of the
//! exported function the C caller called, so that the message names it, and return their error
//! value for it (`checked!`: NULL, false, a failed status, 0; an abort where they return
//! nothing).

#[cfg(graph_optimize_params)]
mod alloc_deps;
mod arg;
mod backend;
mod buffer;
mod buffer_type;
mod cell;
#[cfg(meta)]
mod context;
mod device;
mod event;
mod graph;
mod reg;
mod tensor;

use crate::base::report::Refused;
#[cfg(graph_optimize_params)]
pub use alloc_deps::{AllocDeps, KeptUntil};
pub(crate) use arg::arg;
pub use arg::{from_c_array, FromC, ToC};
pub use backend::Backend;
#[cfg(tensor_2d)]
pub use buffer::Runs;
pub use buffer::{buffer_changes, Buffer};
pub use buffer_type::{BufferType, StaticBufferType};
pub use cell::{CellHandle, HeldInCell};
#[cfg(meta)]
pub use context::Context;
pub use device::Device;
pub use event::Event;
#[cfg(meta)]
pub use graph::OwnedGraph;
pub use graph::{graph_over, Graph};
pub use reg::Reg;
#[cfg(op_alloc_size_may_expand)]
pub use tensor::alloc_size_may_expand;
#[cfg(meta)]
pub use tensor::Fingerprint;
pub use tensor::{c_str_lossy, is_view_op, Description, Tensor};

/// Defines a handle type over the C object `$raw`.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident => $raw:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
        #[repr(transparent)]
        pub struct $name(core::ptr::NonNull<$raw>);

        impl $name {
            /// # Safety
            /// `ptr` is NULL or points to a live object that stays live while the handle is used.
            #[inline(always)]
            pub unsafe fn from_raw(ptr: *mut $raw) -> Option<Self> {
                core::ptr::NonNull::new(ptr).map(Self)
            }

            /// The handle of an object this library made: it lives until freed.
            pub fn leak(object: alloc::boxed::Box<$raw>) -> Self {
                Self(core::ptr::NonNull::from(alloc::boxed::Box::leak(object)))
            }

            #[inline(always)]
            pub fn as_ptr(self) -> *mut $raw {
                self.0.as_ptr()
            }

            #[inline(always)]
            fn raw(&self) -> &$raw {
                // SAFETY: a handle is only made from a live object (see from_raw).
                unsafe { self.0.as_ref() }
            }
        }
    };
}
use handle;

/// The entry a backend must provide, or the refusal naming the caller and the entry (a method
/// takes it with `checked!`: its error value, or an abort where it returns nothing).
#[inline(always)]
fn required<F: Copy>(entry: Option<F>, caller: &str, what: &str) -> Result<F, Refused> {
    match entry {
        Some(f) => Ok(f),
        None => Err(not_implemented(caller, what)),
    }
}

#[cold]
#[inline(never)]
fn not_implemented(caller: &str, what: &str) -> Refused {
    Refused::new(format_args!("{caller}: {what} not implemented by this backend"))
}
