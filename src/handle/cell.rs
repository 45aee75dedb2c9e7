//! What C holds of an object that calls user code while it works, which may call it back: a
//! pointer to a `RefCell`, behind an opaque C type. Each export borrows the object through the
//! cell for the length of its call, to read or to change it, so that a call back never makes a
//! second `&mut` while one is live: it gets a shared borrow beside other shared ones, or is
//! refused. (The scheduler is such an object: an eval callback or a backend's graph_compute may
//! call its getters.)

use crate::base::fallible::{try_box, OutOfMemory};
use alloc::boxed::Box;
use core::cell::{Ref, RefCell, RefMut};
use core::ptr::NonNull;

/// An opaque C type (`struct ggml_backend_sched`) whose pointers are cells holding `Object`.
pub trait HeldInCell {
    type Object;
}

/// The handle of an object held in a cell, as C holds it: a `*mut C`.
pub struct CellHandle<C: HeldInCell>(NonNull<RefCell<C::Object>>);

impl<C: HeldInCell> Clone for CellHandle<C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: HeldInCell> Copy for CellHandle<C> {}

impl<C: HeldInCell> CellHandle<C> {
    /// Hands an object over to C; [`CellHandle::release`] takes it back.
    pub fn new(object: C::Object) -> Result<Self, OutOfMemory> {
        Ok(CellHandle(NonNull::from(Box::leak(try_box(RefCell::new(object))?))))
    }

    /// # Safety
    /// `ptr` is NULL or a handle made by [`CellHandle::new`] and not released yet.
    #[inline(always)]
    pub unsafe fn from_raw(ptr: *mut C) -> Option<Self> {
        NonNull::new(ptr.cast()).map(CellHandle)
    }

    pub fn as_ptr(self) -> *mut C {
        self.0.as_ptr().cast()
    }

    fn cell<'a>(self) -> &'a RefCell<C::Object> {
        // SAFETY: live (from_raw) until release; the cell is only ever shared, and the object is
        // not used from two threads at once (the ggml API's rule; RefCell is !Sync).
        unsafe { self.0.as_ref() }
    }

    pub fn try_read<'a>(self) -> Option<Ref<'a, C::Object>> {
        self.cell().try_borrow().ok()
    }

    pub fn try_write<'a>(self) -> Option<RefMut<'a, C::Object>> {
        self.cell().try_borrow_mut().ok()
    }

    /// Takes the object back from C; None (and it stays) while a borrow is live.
    ///
    /// # Safety
    /// The handle is not used afterwards.
    pub unsafe fn release(self) -> Option<C::Object> {
        drop(self.try_write()?);
        // SAFETY: made by Box::leak in new, released once (the caller's promise); no borrow is
        // live (try_write just succeeded).
        Some(unsafe { Box::from_raw(self.0.as_ptr()) }.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::{CellHandle, HeldInCell};

    /// An opaque C type for the test, holding a vector.
    struct OpaqueVec;
    impl HeldInCell for OpaqueVec {
        type Object = Vec<i32>;
    }

    #[test]
    fn a_call_back_reads_beside_the_running_call_and_can_neither_change_nor_free_it() {
        let handle = CellHandle::<OpaqueVec>::new(vec![1, 2, 3]).unwrap();
        // What C holds, and the computation's shared borrow while user code runs.
        let raw = handle.as_ptr();
        let running = handle.try_read().unwrap();
        // The call back: an export makes a handle from the same pointer.
        // SAFETY: made by new above, not released.
        let again = unsafe { CellHandle::from_raw(raw) }.unwrap();
        assert_eq!(again.try_read().unwrap().len(), 3);
        assert!(again.try_write().is_none());
        // SAFETY: refused while a borrow is live, so the handle stays usable.
        assert!(unsafe { again.release() }.is_none());
        assert_eq!(running[0], 1);
        drop(running);
        again.try_write().unwrap().push(4);
        // SAFETY: not used afterwards.
        assert_eq!(unsafe { handle.release() }, Some(vec![1, 2, 3, 4]));
    }
}
