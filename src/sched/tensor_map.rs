//! A map from tensor addresses to dense ids, built for the scheduler's hot path: open
//! addressing over a power-of-two table (a mask, not a division), and O(1) clearing through a
//! generation stamp, so that a reset touches no memory and nothing is allocated once the table
//! is large enough for the graphs it sees.

/// Dense tensor id, an index into the scheduler's per-tensor arrays.
pub type Tid = u32;

pub struct TensorMap {
    keys: Vec<usize>,
    ids: Vec<Tid>,
    stamps: Vec<u32>,
    generation: u32,
    len: usize,
}

impl Default for TensorMap {
    fn default() -> Self {
        Self::with_capacity(64)
    }
}

impl TensorMap {
    /// A map that holds `n` keys without growing.
    pub fn with_capacity(n: usize) -> Self {
        let slots = (n.max(8) * 2).next_power_of_two();
        TensorMap { keys: vec![0; slots], ids: vec![0; slots], stamps: vec![0; slots], generation: 1, len: 0 }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Forgets every key in O(1).
    pub fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // The stamp counter wrapped: old stamps could look current again.
            self.stamps.fill(0);
            self.generation = 1;
        }
    }

    #[inline]
    fn slot_of(&self, key: usize) -> usize {
        // Tensors are at least 16-byte aligned; Fibonacci hashing spreads the rest.
        let h = ((key >> 4) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & (self.keys.len() - 1)
    }

    /// The id of `key`, if present.
    #[inline]
    pub fn get(&self, key: usize) -> Option<Tid> {
        let mask = self.keys.len() - 1;
        let mut slot = self.slot_of(key);
        while self.stamps[slot] == self.generation {
            if self.keys[slot] == key {
                return Some(self.ids[slot]);
            }
            slot = (slot + 1) & mask;
        }
        None
    }

    /// Inserts `key` with id `id` (the caller guarantees it is absent).
    pub fn insert(&mut self, key: usize, id: Tid) {
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut slot = self.slot_of(key);
        while self.stamps[slot] == self.generation {
            debug_assert_ne!(self.keys[slot], key, "key inserted twice");
            slot = (slot + 1) & mask;
        }
        self.keys[slot] = key;
        self.ids[slot] = id;
        self.stamps[slot] = self.generation;
        self.len += 1;
    }

    fn grow(&mut self) {
        let live: Vec<(usize, Tid)> = (0..self.keys.len())
            .filter(|&s| self.stamps[s] == self.generation)
            .map(|s| (self.keys[s], self.ids[s]))
            .collect();
        *self = TensorMap::with_capacity(self.keys.len());
        for (key, id) in live {
            self.insert(key, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let mut m = TensorMap::with_capacity(4);
        for i in 0..1000usize {
            m.insert(0x1000 + i * 336, i as Tid);
        }
        assert_eq!(m.len(), 1000);
        for i in 0..1000usize {
            assert_eq!(m.get(0x1000 + i * 336), Some(i as Tid));
        }
        assert_eq!(m.get(0x1000 + 1000 * 336), None);
    }

    #[test]
    fn clear_forgets_everything_and_the_map_is_reusable() {
        let mut m = TensorMap::with_capacity(16);
        m.insert(0x40, 7);
        m.clear();
        assert_eq!(m.get(0x40), None);
        assert_eq!(m.len(), 0);
        m.insert(0x40, 3);
        assert_eq!(m.get(0x40), Some(3));
    }

    #[test]
    fn survives_generation_wraparound() {
        let mut m = TensorMap::with_capacity(8);
        m.insert(0x80, 1);
        m.generation = u32::MAX;
        m.stamps.iter_mut().for_each(|s| *s = u32::MAX);
        m.clear();
        assert_eq!(m.get(0x80), None);
    }
}
