//! Allocation that reports failure instead of aborting: Rust's `Box::new` and a growing `Vec`
//! end the process when the heap is exhausted, which a caller that can tell C "no" (NULL, false,
//! ALLOC_FAILED) must not do.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::alloc::Layout;

/// The heap had no room for what was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory;

impl From<alloc::collections::TryReserveError> for OutOfMemory {
    fn from(_: alloc::collections::TryReserveError) -> OutOfMemory {
        OutOfMemory
    }
}

/// `value` on the heap.
pub fn try_box<T>(value: T) -> Result<Box<T>, OutOfMemory> {
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        // Nothing to allocate: Box::new cannot fail.
        return Ok(Box::new(value));
    }
    // SAFETY: a layout of non-zero size.
    let ptr = unsafe { alloc::alloc::alloc(layout) } as *mut T;
    if ptr.is_null() {
        return Err(OutOfMemory);
    }
    // SAFETY: fresh memory of T's layout from the global allocator, which is what a Box owns
    // and releases; written once before the Box reads it.
    unsafe {
        ptr.write(value);
        Ok(Box::from_raw(ptr))
    }
}

/// An empty vector with room for `n` values: pushing up to `n` does not allocate again.
pub fn try_vec<T>(n: usize) -> Result<Vec<T>, OutOfMemory> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(n)?;
    Ok(vec)
}

/// The values of an iterator that knows its length, in a vector allocated once.
pub fn try_collect<I: ExactSizeIterator>(values: I) -> Result<Vec<I::Item>, OutOfMemory> {
    let mut vec = try_vec(values.len())?;
    vec.extend(values);
    Ok(vec)
}

/// Room in `vec` for `total` values in all (its length may already be past it).
pub fn reserve_total<T>(vec: &mut Vec<T>, total: usize) -> Result<(), OutOfMemory> {
    Ok(vec.try_reserve(total.saturating_sub(vec.len()))?)
}

/// `n` copies of `value`.
pub fn try_filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>, OutOfMemory> {
    let mut vec = try_vec(n)?;
    vec.resize(n, value);
    Ok(vec)
}

/// A map over a sorted vector: lookups by binary search, and an insertion that reports a full
/// heap (the maps the library keeps per buffer hold at most a context's tensors).
#[derive(Debug)]
pub struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, V> SortedMap<K, V> {
    pub const fn new() -> Self {
        SortedMap(Vec::new())
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    pub fn get(&self, key: &K) -> Option<&V> {
        self.0.binary_search_by(|(k, _)| k.cmp(key)).ok().map(|i| &self.0[i].1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// Sets the value of `key` (replacing the one it had).
    pub fn try_insert(&mut self, key: K, value: V) -> Result<(), OutOfMemory> {
        match self.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => {
                self.0.try_reserve(1)?;
                self.0.insert(i, (key, value));
            }
        }
        Ok(())
    }

    /// The value of `key`, taken out.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let i = self.0.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
        Some(self.0.remove(i).1)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sorted_map_finds_what_it_was_given_whatever_the_order() {
        let mut map = SortedMap::default();
        for key in [5, 1, 3, 1] {
            map.try_insert(key, key * 10).unwrap();
        }
        assert_eq!((map.get(&1), map.get(&3), map.get(&5), map.get(&2)), (Some(&10), Some(&30), Some(&50), None));
        assert_eq!(map.0.len(), 3);
        assert_eq!((map.remove(&3), map.remove(&3), map.len()), (Some(30), None, 2));
        map.clear();
        assert!(!map.contains_key(&1));
    }

    #[test]
    fn what_fits_is_allocated_once() {
        let mut vec = try_vec::<u32>(3).unwrap();
        let at = vec.as_ptr();
        vec.extend([1, 2, 3]);
        assert_eq!((vec.as_ptr(), vec.capacity()), (at, 3));
        assert_eq!(*try_box(7u64).unwrap(), 7);
        assert_eq!(try_collect([1u8, 2].into_iter()).unwrap(), [1, 2]);
        assert_eq!(try_filled(4, 0u8).unwrap(), [0; 4]);
    }

    #[test]
    fn what_cannot_fit_is_reported() {
        assert_eq!(try_vec::<u64>(usize::MAX / 4).unwrap_err(), OutOfMemory);
        assert_eq!(try_filled(usize::MAX, 0u8).unwrap_err(), OutOfMemory);
    }
}

/// Text that grows only as far as the heap lets it: formatting into it never aborts, and what
/// does not fit is left out (`write!` then returns an error, which a log line may ignore).
#[derive(Default)]
pub struct FallibleText(pub alloc::string::String);

impl core::fmt::Write for FallibleText {
    fn write_str(&mut self, text: &str) -> core::fmt::Result {
        self.0.try_reserve(text.len()).map_err(|_| core::fmt::Error)?;
        self.0.push_str(text);
        Ok(())
    }
}
