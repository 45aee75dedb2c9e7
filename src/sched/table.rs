//! The scheduler's per-tensor tables, indexed by dense tensor ids ([`Tid`]): what the planner
//! knows of each tensor ([`TensorInfo`]), its backend assignment and copy bits, and the ids
//! themselves, which a graph rebuilt in the same memory gets back in order.

use super::per_id::PerId;
use super::tensor_map::TensorMap;
pub use super::tensor_map::Tid;
use crate::abi::GGML_MAX_SRC;
use crate::abi::PREFIX;
use crate::base::fallible::{reserve_total, try_vec, OutOfMemory};
use alloc::vec::Vec;

/// "No tensor" in id fields (a NULL pointer).
pub const NO_TENSOR: Tid = Tid::MAX;

/// A buffer type, by identity (its address); only ever compared.
pub type BuftId = usize;

/// What the passes need to know about one tensor, read from it at the start of each split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorInfo {
    /// The tensor this one is a view of.
    pub view_src: Tid,
    /// The buffer type of the buffer that holds the bytes (the view source's, for a view).
    pub storage_buft: Option<BuftId>,
    /// The tensor or its view source has a buffer: it cannot move to another backend.
    pub preallocated: bool,
    /// The tensor's own buffer holds weights (usage GGML_BACKEND_BUFFER_USAGE_WEIGHTS).
    pub weights: bool,
    /// The tensor's own buffer is host memory.
    pub host: bool,
    /// The [`buffer_changes`](crate::handle::buffer_changes) count when the four facts above
    /// were read (not a planning input: it says whether they need reading again).
    pub buffers_read_at: u64,
    /// Flagged as a graph input (GGML_TENSOR_FLAG_INPUT).
    pub input: bool,
    pub is_view_op: bool,
    /// Not placed by its weights: ROPE (its frequency table is too small to decide by), and from
    /// 0.7 FLASH_ATTN_EXT (for its sinks tensor, likewise).
    pub ignores_weights: bool,
    /// Bit i set: source slot i holds a tensor, `srcs[i]`. Slots without their bit are not read
    /// (and may hold a previous tensor's ids), so that an empty slot costs nothing.
    pub src_mask: u16,
    pub srcs: [Tid; GGML_MAX_SRC],
}

impl TensorInfo {
    /// The sources as (slot, id), in slot order.
    #[inline(always)]
    pub fn sources(&self) -> Sources {
        Sources { srcs: self.srcs, mask: self.src_mask }
    }

    /// Puts `src` in source slot `slot`.
    pub fn set_src(&mut self, slot: usize, src: Tid) {
        self.srcs[slot] = src;
        self.src_mask |= 1 << slot;
    }
}

/// The sources of a tensor (see [`TensorInfo::sources`]).
#[derive(Clone)]
pub struct Sources {
    srcs: [Tid; GGML_MAX_SRC],
    mask: u16,
}

impl Iterator for Sources {
    type Item = (usize, Tid);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, Tid)> {
        if self.mask == 0 {
            return None;
        }
        let slot = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some((slot, self.srcs[slot]))
    }
}

impl Default for TensorInfo {
    fn default() -> Self {
        TensorInfo {
            view_src: NO_TENSOR,
            storage_buft: None,
            preallocated: false,
            weights: false,
            host: false,
            buffers_read_at: 0,
            input: false,
            is_view_op: false,
            ignores_weights: false,
            src_mask: 0,
            srcs: [NO_TENSOR; GGML_MAX_SRC],
        }
    }
}

/// Everything the scheduler knows per tensor, indexed by [`Tid`]. Backend assignments (and
/// the copies made for them) persist until the scheduler is reset, as in the reference, so
/// that `set_tensor_backend` before a split is honoured.
///
/// The arrays only grow: clearing forgets the ids (`len` back to 0) and a new tensor reuses the
/// entries of an old one, so that rebuilding a graph after a reset writes in place instead of
/// pushing. An id's [`TensorInfo`] is meaningful once the tensor has been refreshed (the
/// scheduler reads every tensor of a graph before planning it).
///
/// Clearing keeps the address map: a graph rebuilt in the same memory meets its tensors in the
/// same order, so each one gets the id it had before, and finding the next id's previous key
/// is all it takes (no hashing, no map write). The map's entries are hints, valid when `keys`
/// agrees: every non-zero `keys[t]` maps to `t` (so keys in `keys` are distinct), and an id
/// below `len` whose key is the one looked up is that key's current id.
pub struct TensorTable {
    map: TensorMap,
    /// Ids in use: entries past it belong to forgotten tensors.
    len: usize,
    /// The address of each id's tensor, 0 where none is known (see above).
    keys: Vec<usize>,
    pub info: PerId<TensorInfo>,
    /// Assigned backend, -1 for none.
    pub backend: PerId<i32>,
    /// The copies requested of each tensor and the split in which its info was last refreshed
    /// (side by side: both are written for each new id).
    stamps: PerId<Stamps>,
}

impl TensorTable {
    pub fn new(n_backends: usize, capacity: usize) -> Result<Self, OutOfMemory> {
        assert!(n_backends <= u16::BITS as usize, "copy bits hold at most 16 backends");
        Ok(TensorTable {
            map: TensorMap::with_capacity(capacity)?,
            len: 0,
            keys: try_vec(capacity)?,
            info: PerId(try_vec(capacity)?),
            backend: PerId(try_vec(capacity)?),
            stamps: PerId(try_vec(capacity)?),
        })
    }

    /// Room for `n` more ids than are in use, so that adding them allocates nothing.
    pub fn make_room(&mut self, n: usize) -> Result<(), OutOfMemory> {
        let total = self.len + n;
        reserve_total(&mut self.keys, total)?;
        reserve_total(&mut self.info, total)?;
        reserve_total(&mut self.backend, total)?;
        reserve_total(&mut self.stamps, total)?;
        if !self.map.has_room(n) {
            self.rebuild_map(n)?;
        }
        Ok(())
    }

    /// Whether the map takes `n` more ids without a rebuild.
    #[inline(always)]
    pub fn map_has_room(&self, n: usize) -> bool {
        self.map.has_room(n)
    }

    /// The map from the keys alone (dropping stale hints), with room for `more` insertions.
    #[cold]
    fn rebuild_map(&mut self, more: usize) -> Result<(), OutOfMemory> {
        let keys = &self.keys;
        self.map.rebuild(keys.iter().enumerate().filter(|&(_, &k)| k != 0).map(|(t, &k)| (k, t as Tid)), more)
    }

    /// Forgets every tensor (and so every assignment and copy); the map is kept as hints.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(test)]
    fn map_slots(&self) -> usize {
        self.map.slots()
    }

    /// Whether `tid` is in use for the tensor at address `key`.
    #[inline(always)]
    fn is_current(&self, tid: Tid, key: usize) -> bool {
        (tid as usize) < self.len && self.keys[tid as usize] == key
    }

    /// The id of the tensor at address `key`, if known.
    pub fn lookup(&self, key: usize) -> Option<Tid> {
        self.map.get(key).filter(|&tid| self.is_current(tid, key))
    }

    /// The id of the tensor at address `key`, adding it (unassigned, without copies, not
    /// refreshed) when new; the flag says whether it was added. (The scheduler calls its two
    /// halves itself: a reused id keeps its records, which it need not write again.)
    #[cfg(test)]
    pub fn id(&mut self, key: usize) -> (Tid, bool) {
        match self.reuse_next(key) {
            Some(tid) => (tid, true),
            None => self.id_from_map(key),
        }
    }

    /// The next id, added, when it belonged to the tensor at `key` before the last clear (the
    /// caller's per-id records of that tensor still hold): the map says so already.
    #[inline(always)]
    pub fn reuse_next(&mut self, key: usize) -> Option<Tid> {
        self.reuse_next_refreshed(key, 0)
    }

    /// [`Self::reuse_next`], marked as refreshed in split `epoch` (see
    /// [`Self::mark_refreshed`]).
    #[inline(always)]
    pub fn reuse_next_refreshed(&mut self, key: usize, epoch: u32) -> Option<Tid> {
        let next = self.len;
        if self.keys.get(next) != Some(&key) {
            return None;
        }
        self.add(next, epoch);
        Some(next as Tid)
    }

    /// The id of the tensor at address `key` (as `id`, the tests' shorthand, gives it), when the
    /// next id did not belong to it.
    #[inline(never)]
    pub fn id_from_map(&mut self, key: usize) -> (Tid, bool) {
        if !self.map.has_room(1) && self.rebuild_map(1).is_err() {
            // Past the room made for the graph (a tensor outside its nodes and leafs), where
            // nothing can be returned: the panic aborts through ggml.
            panic!("{PREFIX}ggml_backend_sched: out of memory reading a graph");
        }
        let next = self.len;
        let (tid, inserted) = self.map.get_or_insert(key, next as Tid);
        if !inserted {
            if self.is_current(tid, key) {
                return (tid, false);
            }
            // A hint from before the clear, for another id now.
            if self.keys.get(tid as usize) == Some(&key) {
                self.keys[tid as usize] = 0;
            }
            self.map.replace(key, next as Tid);
        }
        if next < self.keys.len() {
            self.keys[next] = key;
        } else {
            self.keys.push(key);
        }
        self.add(next, 0);
        (next as Tid, true)
    }

    /// Adds id `next` (the next one), unassigned, without copies, refreshed in split
    /// `refreshed` (0: not refreshed).
    #[inline(always)]
    pub fn add(&mut self, next: usize, refreshed: u32) {
        self.len += 1;
        if next < self.info.len() {
            self.backend[next as Tid] = -1;
            self.stamps[next as Tid] = Stamps { refreshed, has_copy: 0 };
        } else {
            self.info.push(TensorInfo::default());
            self.backend.push(-1);
            self.stamps.push(Stamps { refreshed, has_copy: 0 });
        }
    }

    /// Whether the info of `tid` was already refreshed in split number `epoch`; marks it so.
    #[inline(always)]
    pub fn mark_refreshed(&mut self, tid: Tid, epoch: u32) -> bool {
        let refreshed = &mut self.stamps[tid].refreshed;
        let seen = *refreshed == epoch;
        *refreshed = epoch;
        seen
    }

    /// Whether `tid` was refreshed in split `epoch` (so is in use, for the tensor recorded for it).
    #[inline(always)]
    pub fn refreshed_in(&self, tid: Tid, epoch: u32) -> bool {
        self.stamps.get(tid as usize).is_some_and(|s| s.refreshed == epoch)
    }

    /// The backend of `tid`, -1 for none or for NO_TENSOR.
    #[inline]
    pub fn backend_of(&self, tid: Tid) -> i32 {
        if tid == NO_TENSOR {
            -1
        } else {
            self.backend[tid]
        }
    }

    pub fn has_copy(&self, tid: Tid, backend: usize) -> bool {
        self.stamps[tid].has_copy & (1 << backend) != 0
    }

    pub fn set_has_copy(&mut self, tid: Tid, backend: usize) {
        self.stamps[tid].has_copy |= 1 << backend;
    }

    /// Every backend's copy bit of `tid` (bit b: backend b).
    #[cfg(test)]
    pub fn copy_bits(&self, tid: Tid) -> u16 {
        self.stamps[tid].has_copy
    }
}

/// See [`TensorTable`]'s `stamps`.
#[derive(Clone, Copy)]
struct Stamps {
    /// The split in which the tensor's info was last refreshed.
    refreshed: u32,
    /// Bit b set: copies of the tensor for backend b were requested (at most 16 backends).
    has_copy: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_after_a_clear_are_dense_and_follow_the_new_order() {
        let mut table = TensorTable::new(1, 8).unwrap();
        let keys = [0x100, 0x200, 0x300, 0x400];
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(table.id(k), (i as Tid, true));
        }
        assert_eq!(table.id(0x200), (1, false));
        table.backend[1] = 0;
        table.clear();
        assert_eq!(table.lookup(0x100), None, "a clear forgets every tensor");
        // The same order: the same ids, fresh.
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(table.id(k), (i as Tid, true));
        }
        assert_eq!(table.backend[1], -1, "a new id is unassigned");
        table.clear();
        // Another order, a tensor left out and a new one.
        for (i, &k) in [0x300, 0x500, 0x100].iter().enumerate() {
            assert_eq!(table.id(k), (i as Tid, true));
        }
        for (i, &k) in [0x300, 0x500, 0x100].iter().enumerate() {
            assert_eq!(table.id(k), (i as Tid, false));
            assert_eq!(table.lookup(k), Some(i as Tid));
        }
        assert_eq!(table.lookup(0x200), None);
        assert_eq!(table.lookup(0x400), None);
        table.clear();
        // The previous order again, after the other.
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(table.id(k), (i as Tid, true));
        }
        assert_eq!(table.lookup(0x500), None);
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(table.lookup(k), Some(i as Tid));
        }
    }

    #[test]
    fn tensors_at_new_addresses_at_every_clear_do_not_grow_the_map() {
        let mut table = TensorTable::new(1, 16).unwrap();
        let mut slots = 0;
        for round in 0..200usize {
            if round == 2 {
                slots = table.map_slots(); // grown to hold twice the tensors of a graph
            }
            table.clear();
            for i in 0..16usize {
                let key = 0x10_0000 + (round * 16 + i) * 0x40;
                assert_eq!(table.id(key), (i as Tid, true), "round {round}");
                assert_eq!(table.lookup(key), Some(i as Tid));
            }
            assert_eq!(table.lookup(0x10_0000 + (round * 16) * 0x40 - 0x40), None);
        }
        assert_eq!(table.map_slots(), slots);
    }
}
