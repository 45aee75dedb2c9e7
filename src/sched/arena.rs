//! Storage for the tensors the scheduler creates itself (copies of split inputs and the views
//! that keep their sources alive): fixed-size chunks that are kept and reused, so that after
//! the first graph of a given shape no memory is allocated, and addresses stay stable while a
//! graph is in use.

use crate::abi::ggml_tensor;
use crate::base::fallible::{reserve_total, OutOfMemory};
use crate::handle::Tensor;
use alloc::alloc::{alloc_zeroed, dealloc, Layout};
use alloc::vec::Vec;

const CHUNK_TENSORS: usize = 256;

#[derive(Default)]
pub struct TensorArena {
    chunks: Vec<*mut ggml_tensor>,
    used: usize,
}

fn chunk_layout() -> Layout {
    // 64-byte alignment: ggml hashes tensor addresses with the low 4 bits dropped.
    Layout::from_size_align(CHUNK_TENSORS * core::mem::size_of::<ggml_tensor>(), 64).expect("chunk layout")
}

impl TensorArena {
    /// Makes every slot available again; tensors handed out before must no longer be used.
    pub fn reset(&mut self) {
        self.used = 0;
    }

    /// Chunks for `n` more tensors than are handed out.
    pub fn make_room(&mut self, n: usize) -> Result<(), OutOfMemory> {
        let chunks = (self.used + n).div_ceil(CHUNK_TENSORS);
        reserve_total(&mut self.chunks, chunks)?;
        while self.chunks.len() < chunks {
            // SAFETY: the layout has a non-zero size.
            let memory = unsafe { alloc_zeroed(chunk_layout()) } as *mut ggml_tensor;
            if memory.is_null() {
                return Err(OutOfMemory);
            }
            self.chunks.push(memory);
        }
        Ok(())
    }

    /// A slot holding `tensor`, valid until the next reset; room for it was made.
    pub fn alloc(&mut self, tensor: ggml_tensor) -> Tensor {
        let chunk = self.used / CHUNK_TENSORS;
        assert!(chunk < self.chunks.len(), "a tensor in the arena without room made for it");
        // SAFETY: the slot is inside a live chunk, and no longer used by anyone.
        unsafe {
            let slot = self.chunks[chunk].add(self.used % CHUNK_TENSORS);
            slot.write(tensor);
            self.used += 1;
            Tensor::from_raw(slot).expect("a slot inside a chunk is never NULL")
        }
    }
}

impl Drop for TensorArena {
    fn drop(&mut self) {
        for &chunk in &self.chunks {
            // SAFETY: each chunk was allocated with this layout and is freed once.
            unsafe { dealloc(chunk as *mut u8, chunk_layout()) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor_with_flags(flags: i32) -> ggml_tensor {
        // SAFETY: all-zero is a valid tensor (NULL pointers, zero numbers, empty name).
        let mut t: ggml_tensor = unsafe { std::mem::zeroed() };
        t.flags = flags;
        t
    }

    #[test]
    fn slots_are_distinct_hold_their_tensor_and_are_reused_after_reset() {
        let mut arena = TensorArena::default();
        arena.make_room(CHUNK_TENSORS + 3).unwrap();
        let first: Vec<*mut ggml_tensor> =
            (0..CHUNK_TENSORS + 3).map(|i| arena.alloc(tensor_with_flags(i as i32)).as_ptr()).collect();
        let unique: std::collections::HashSet<_> = first.iter().collect();
        assert_eq!(unique.len(), first.len());
        // SAFETY: slots stay live until the arena is dropped.
        assert_eq!(unsafe { (*first[CHUNK_TENSORS + 2]).flags }, CHUNK_TENSORS as i32 + 2);
        arena.reset();
        let again = arena.alloc(tensor_with_flags(-1)).as_ptr();
        assert_eq!(again, first[0], "the first slot is handed out again");
        // SAFETY: the arena, and so the slot, is still live.
        assert_eq!(unsafe { (*again).flags }, -1, "holding the new tensor");
        assert_eq!(arena.chunks.len(), 2);
    }
}
