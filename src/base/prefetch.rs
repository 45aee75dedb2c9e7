//! Asking the CPU to bring memory into its caches ahead of use.
//!
//! The scheduler keeps what it knows of each tensor from one graph to the next, and reads it for
//! every tensor of every graph, in id order. Between two of whisper's tokens the compute streams
//! the model through the caches and evicts all of it, so each tensor's record costs a trip to
//! memory; asking for the records a few tensors ahead overlaps those trips with the work on the
//! current one (BENCHMARKS.md, "What the scheduler waits for").

/// The cache line size of the targets this library is built for (x86-64 and ARM: 64 bytes).
const LINE: usize = 64;

/// Asks for every cache line of `value` to be loaded, without waiting for it. A hint: no effect
/// on what any load returns, and none at all on targets without a prefetch instruction here.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    let start = (value as *const T).cast::<u8>();
    let size = size_of::<T>();
    let mut offset = 0;
    while offset < size {
        line(start.wrapping_add(offset));
        offset += LINE;
    }
    // The last byte's line, where the value does not start on a line boundary.
    if size > 0 {
        line(start.wrapping_add(size - 1));
    }
}

#[inline(always)]
fn line(address: *const u8) {
    #[cfg(any(target_arch = "x86_64", all(target_arch = "x86", target_feature = "sse")))]
    {
        #[cfg(target_arch = "x86")]
        use core::arch::x86::{_mm_prefetch, _MM_HINT_T0};
        #[cfg(target_arch = "x86_64")]
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch reads nothing a program can observe and never faults, whatever the
        // address; SSE, which it needs, is part of these targets.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) };
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: PRFM is a hint: it writes no register or memory and never faults.
    unsafe {
        core::arch::asm!("prfm pldl1keep, [{0}]", in(reg) address, options(nostack, readonly, preserves_flags));
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "x86", target_feature = "sse"),
        target_arch = "aarch64"
    )))]
    let _ = address;
}
