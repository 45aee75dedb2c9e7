//! A map from tensor addresses to dense ids, built for the scheduler's hot path: open
//! addressing over a power-of-two table (a mask, not a division), and O(1) clearing through a
//! generation stamp, so that a reset touches no memory and nothing is allocated once the table
//! is large enough for the graphs it sees.

use crate::base::fallible::{try_filled, OutOfMemory};
use alloc::vec::Vec;

/// Dense tensor id, an index into the scheduler's per-tensor arrays.
pub type Tid = u32;

pub struct TensorMap {
    slots: Vec<Slot>,
    generation: u32,
    len: usize,
    /// Keys the table takes before it grows (half its slots).
    limit: usize,
}

/// One entry; live when its stamp equals the map's generation.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: usize,
    id: Tid,
    stamp: u32,
}

impl TensorMap {
    /// A map that holds `n` keys without growing.
    pub fn with_capacity(n: usize) -> Result<Self, OutOfMemory> {
        let slots = (n.max(8) * 2).next_power_of_two();
        Ok(TensorMap { slots: try_filled(slots, Slot::default())?, generation: 1, len: 0, limit: slots / 2 })
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[cfg(test)]
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Forgets every key in O(1).
    pub fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // The stamp counter wrapped: old stamps could look current again.
            self.slots.iter_mut().for_each(|s| s.stamp = 0);
            self.generation = 1;
        }
    }

    /// Where the probe for `key` starts, and the mask that wraps it.
    #[inline]
    fn start(&self, key: usize) -> (usize, usize) {
        let mask = self.slots.len() - 1;
        // Tensors are at least 16-byte aligned. Within a 1 MiB region the address order is
        // kept: ggml contexts lay a graph's tensors out one after another, so consecutive
        // lookups touch nearby slots (prefetched, not a cache miss each after a compute evicted
        // the table), and equal strides of an odd number of 16-byte units never collide.
        // Each region is shifted by an offset from Fibonacci hashing (an offset keeps the
        // order; a XOR would not), so that tensors at the same offset of different
        // allocations do not all pile up on the same slots.
        let region = ((key >> 20) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        ((key >> 4).wrapping_add(region as usize) & mask, mask)
    }

    /// The id of `key`, if present.
    #[inline]
    pub fn get(&self, key: usize) -> Option<Tid> {
        let (mut i, mask) = self.start(key);
        loop {
            let slot = self.slots[i];
            if slot.stamp != self.generation {
                return None;
            }
            if slot.key == key {
                return Some(slot.id);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `key`, inserting it with id `id` when absent (one probe sequence either way);
    /// the flag says whether it was inserted. The map must have room ([`Self::is_full`]).
    #[inline(always)]
    pub fn get_or_insert(&mut self, key: usize, id: Tid) -> (Tid, bool) {
        debug_assert!(self.len < self.limit, "an insertion into a full map");
        let (mut i, mask) = self.start(key);
        let generation = self.generation;
        loop {
            let slot = &mut self.slots[i];
            if slot.stamp != generation {
                *slot = Slot { key, id, stamp: generation };
                self.len += 1;
                return (id, true);
            }
            if slot.key == key {
                return (slot.id, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether `n` more insertions fit.
    #[inline(always)]
    pub fn has_room(&self, n: usize) -> bool {
        self.len + n <= self.limit
    }

    /// Forgets every key and inserts `entries` instead, with room for `more` insertions after
    /// them: a map whose caller keeps stale keys (see `TensorTable`) drops them here. It grows
    /// when the entries and `more` would take more than half of what it holds (so that as many
    /// insertions again come before the next rebuild), and so does not allocate while their
    /// number stays the same. Unchanged when it cannot grow.
    #[cold]
    #[inline(never)]
    pub fn rebuild(
        &mut self,
        entries: impl Iterator<Item = (usize, Tid)> + Clone,
        more: usize,
    ) -> Result<(), OutOfMemory> {
        let n = entries.clone().count() + more;
        if 2 * n > self.limit {
            *self = TensorMap::with_capacity(2 * n)?;
        } else {
            self.clear();
        }
        for (key, id) in entries {
            self.get_or_insert(key, id);
        }
        Ok(())
    }

    /// Points `key`, which is present, at `id`.
    pub fn replace(&mut self, key: usize, id: Tid) {
        let (mut i, mask) = self.start(key);
        loop {
            let slot = &mut self.slots[i];
            debug_assert_eq!(slot.stamp, self.generation, "replace of an absent key");
            if slot.key == key {
                slot.id = id;
                return;
            }
            i = (i + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let mut m = TensorMap::with_capacity(4).unwrap();
        for i in 0..1000usize {
            if !m.has_room(1) {
                let live: Vec<(usize, Tid)> = (0..i).map(|j| (0x1000 + j * 336, j as Tid)).collect();
                m.rebuild(live.into_iter(), 1).unwrap();
            }
            assert!(m.get_or_insert(0x1000 + i * 336, i as Tid).1);
        }
        assert_eq!(m.len(), 1000);
        for i in 0..1000usize {
            assert_eq!(m.get(0x1000 + i * 336), Some(i as Tid));
        }
        assert_eq!(m.get(0x1000 + 1000 * 336), None);
    }

    #[test]
    fn keys_at_the_same_offset_of_many_pages_are_all_found() {
        // One tensor per allocation: the slots their addresses start from collide.
        let key = |i: usize| 0x4000_0040 + i * 4096; // fits 32-bit targets too
        let mut m = TensorMap::with_capacity(3000).unwrap();
        for i in 0..3000 {
            assert!(m.get_or_insert(key(i), i as Tid).1);
        }
        for i in 0..3000 {
            assert_eq!(m.get(key(i)), Some(i as Tid));
        }
        assert_eq!(m.get(key(3000)), None);
    }

    #[test]
    fn clear_forgets_everything_and_the_map_is_reusable() {
        let mut m = TensorMap::with_capacity(16).unwrap();
        m.get_or_insert(0x40, 7);
        m.clear();
        assert_eq!(m.get(0x40), None);
        assert_eq!(m.len(), 0);
        assert_eq!(m.get_or_insert(0x40, 3), (3, true));
        assert_eq!(m.get_or_insert(0x40, 9), (3, false), "a present key keeps its id");
    }

    #[test]
    fn survives_generation_wraparound() {
        let mut m = TensorMap::with_capacity(8).unwrap();
        m.get_or_insert(0x80, 1);
        m.generation = u32::MAX;
        m.slots.iter_mut().for_each(|s| s.stamp = u32::MAX);
        m.clear();
        assert_eq!(m.get(0x80), None);
    }
}
