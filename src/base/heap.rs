//! The library's heap in the C library build (no Rust standard library to bring one): C's
//! allocator, so that the library's memory is the application's memory, seen by the same tools
//! (valgrind, the sanitizers).
//!
//! With the `count-allocations` feature (tests and benchmarks only) the heap also counts the
//! allocations of the library's Rust code, so that a test can check that the scheduler's hot
//! path allocates nothing and that what a call allocated was freed, and it can fail the n-th
//! allocation from a given point on request (fault injection: every place the library
//! allocates must report failure where its export can, and never abort or leak). ggml core,
//! ggml-alloc and the backends allocate with C's malloc themselves, outside these counts. The
//! feature exports `rs_allocation_count`, `rs_live_allocations` and `rs_fail_allocation` under
//! the package's prefix (`wsp_rs_allocation_count` for whisper.rn; outside the `ggml_` namespace
//! of the spec); the default build defines no such symbol.

use core::alloc::{GlobalAlloc, Layout};
use core::ffi::c_void;

/// The alignment C's malloc gives every block (that of `max_align_t`).
const MALLOC_ALIGN: usize = if cfg!(target_pointer_width = "64") { 16 } else { 8 };

struct CHeap;

impl CHeap {
    fn plain(layout: Layout) -> bool {
        layout.align() <= MALLOC_ALIGN && layout.align() <= layout.size()
    }

    /// # Safety
    /// `layout` has a non-zero size (GlobalAlloc's rule).
    unsafe fn allocate(layout: Layout, zeroed: bool) -> *mut u8 {
        if Self::plain(layout) {
            // SAFETY: any size is valid for malloc and calloc.
            return unsafe {
                if zeroed {
                    libc::calloc(1, layout.size()) as *mut u8
                } else {
                    libc::malloc(layout.size()) as *mut u8
                }
            };
        }
        // SAFETY: as for this function.
        unsafe { Self::allocate_aligned(layout, zeroed) }
    }

    /// [`Self::allocate`] for an alignment above malloc's, out of line: rare, and the same code
    /// for every caller.
    ///
    /// # Safety
    /// `layout` has a non-zero size.
    #[cold]
    #[inline(never)]
    unsafe fn allocate_aligned(layout: Layout, zeroed: bool) -> *mut u8 {
        let mut block: *mut c_void = core::ptr::null_mut();
        let align = layout.align().max(core::mem::size_of::<usize>());
        // SAFETY: a power-of-two alignment that is a multiple of the pointer size.
        if unsafe { libc::posix_memalign(&mut block, align, layout.size()) } != 0 {
            return core::ptr::null_mut();
        }
        if zeroed {
            // SAFETY: a fresh block of layout.size() bytes.
            unsafe { core::ptr::write_bytes(block as *mut u8, 0, layout.size()) };
        }
        block as *mut u8
    }
}

// SAFETY: blocks come from C's allocator with at least the layout's size and alignment, and go
// back to it once.
unsafe impl GlobalAlloc for CHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting::fails_now() {
            return core::ptr::null_mut();
        }
        // SAFETY: the caller's promise (a non-zero size).
        let block = unsafe { Self::allocate(layout, false) };
        counting::allocated(block);
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if counting::fails_now() {
            return core::ptr::null_mut();
        }
        // SAFETY: the caller's promise (a non-zero size).
        let block = unsafe { Self::allocate(layout, true) };
        counting::allocated(block);
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
        counting::freed();
        // SAFETY: a block of this allocator (the caller's promise).
        unsafe { libc::free(ptr as *mut c_void) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A reallocation (a growing Vec) counts as an allocation, which may fail.
        if counting::fails_now() {
            return core::ptr::null_mut();
        }
        let new_layout = Layout::from_size_align(new_size, layout.align());
        if new_layout.as_ref().is_ok_and(|&l| Self::plain(l)) && Self::plain(layout) {
            // SAFETY: a block of this allocator, from malloc (the caller's promise).
            return unsafe { libc::realloc(ptr as *mut c_void, new_size) as *mut u8 };
        }
        let Ok(new_layout) = new_layout else { return core::ptr::null_mut() };
        // SAFETY: a non-zero size (GlobalAlloc's rule for realloc).
        let block = unsafe { Self::allocate_aligned(new_layout, false) };
        if !block.is_null() {
            // SAFETY: both blocks hold at least the smaller size, and are distinct.
            unsafe {
                core::ptr::copy_nonoverlapping(ptr, block, layout.size().min(new_size));
                libc::free(ptr as *mut c_void);
            }
        }
        block
    }
}

#[global_allocator]
static HEAP: CHeap = CHeap;

#[cfg(feature = "count-allocations")]
mod counting {
    use core::sync::atomic::{AtomicI64, AtomicU64, Ordering};
    use wsp_ggml_backend_macros::named;

    static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
    static LIVE: AtomicI64 = AtomicI64::new(0);
    /// The allocation count at which the next allocation fails (0: none).
    static FAIL_AT: AtomicU64 = AtomicU64::new(0);

    /// Counts an allocation call; whether it is the one to fail.
    pub fn fails_now() -> bool {
        let n = ALLOCATIONS.fetch_add(1, Ordering::Relaxed) + 1;
        FAIL_AT.compare_exchange(n, 0, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    }

    pub fn allocated(block: *mut u8) {
        if !block.is_null() {
            LIVE.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn freed() {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }

    /// Heap allocations (alloc, alloc_zeroed and realloc calls) made by the library's Rust
    /// code since the program started.
    #[no_mangle]
    #[named]
    pub extern "C" fn rs_allocation_count() -> u64 {
        ALLOCATIONS.load(Ordering::Relaxed)
    }

    /// Blocks the library's Rust code holds now (allocated and not freed).
    #[no_mangle]
    #[named]
    pub extern "C" fn rs_live_allocations() -> i64 {
        LIVE.load(Ordering::Relaxed)
    }

    /// Makes the `nth` allocation call from now fail, once (0: none fails).
    #[no_mangle]
    #[named]
    pub extern "C" fn rs_fail_allocation(nth: u64) {
        let at = if nth == 0 { 0 } else { ALLOCATIONS.load(Ordering::Relaxed) + nth };
        FAIL_AT.store(at, Ordering::Relaxed);
    }
}

#[cfg(not(feature = "count-allocations"))]
mod counting {
    #[inline(always)]
    pub fn fails_now() -> bool {
        false
    }
    #[inline(always)]
    pub fn allocated(_: *mut u8) {}
    #[inline(always)]
    pub fn freed() {}
}
