//! The `count-allocations` feature: a global allocator that forwards to the system allocator
//! and counts allocations, so that benchmarks and tests can check that the scheduler's hot
//! path allocates nothing. Only the library's Rust code goes through it; ggml core, ggml-alloc
//! and the backends allocate with C's malloc and are not counted.
//!
//! Exported as `wsp_rs_allocation_count` (outside the `ggml_` namespace of the spec), and
//! only in this variant: the default build defines no such symbol.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

struct CountingAllocator;

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's promise is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's promise is the system allocator's.
        unsafe { System.alloc_zeroed(layout) }
    }

    // A reallocation (a growing Vec) counts as an allocation too.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's promise is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's promise is the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Heap allocations (alloc, alloc_zeroed and realloc calls) made by the library's Rust code
/// since the program started.
#[no_mangle]
pub extern "C" fn wsp_rs_allocation_count() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}
