//! A table with one entry per tensor id, indexed by the id ([`Tid`]) itself.

use super::tensor_map::Tid;
use crate::abi::PREFIX;
use alloc::vec::Vec;
use core::ops::{Deref, DerefMut, Index, IndexMut};

/// The entries of the ids in use and of forgotten ones, in id order; the `Vec` it derefs to
/// grows and slices it. An id past the end is the scheduler's own broken invariant: it panics
/// (aborting through ggml) from one cold function, where a slice's index check keeps a panic
/// location (and its relocation) for every place that indexes.
#[derive(Default)]
pub struct PerId<T>(pub Vec<T>);

impl<T> Index<Tid> for PerId<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, tid: Tid) -> &T {
        match self.0.get(tid as usize) {
            Some(entry) => entry,
            None => past_the_table(),
        }
    }
}

impl<T> IndexMut<Tid> for PerId<T> {
    #[inline(always)]
    fn index_mut(&mut self, tid: Tid) -> &mut T {
        match self.0.get_mut(tid as usize) {
            Some(entry) => entry,
            None => past_the_table(),
        }
    }
}

impl<T> Deref for PerId<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> DerefMut for PerId<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

#[cold]
#[inline(never)]
fn past_the_table() -> ! {
    panic!("{PREFIX}ggml_backend_sched: a tensor id is past its table")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_indexes_its_own_entry() {
        let mut backends = PerId(alloc::vec![-1, -1, -1]);
        backends[2] = 1;
        assert_eq!(*backends, [-1, -1, 1]);
        assert_eq!(backends[2 as Tid], 1);
    }
}
