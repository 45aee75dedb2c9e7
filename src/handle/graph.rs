//! Graphs as the backend layer sees them: the one module that reads and writes the fields of
//! `ggml_cgraph`, ggml's hash probe, and the graphs this library builds.

use super::Tensor;
use crate::abi::*;
#[cfg(meta)]
use crate::base::fallible::{try_box, try_collect, try_filled, OutOfMemory};
use alloc::vec::Vec;
use core::ffi::c_int;
use core::ptr::NonNull;

/// A live `ggml_cgraph`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct Graph(NonNull<ggml_cgraph>);

impl Graph {
    /// # Safety
    /// `ptr` is NULL or points to a graph whose node and leaf arrays, and their tensors, stay
    /// live while the handle is used.
    #[inline]
    pub unsafe fn from_raw(ptr: *mut ggml_cgraph) -> Option<Graph> {
        NonNull::new(ptr).map(Graph)
    }

    pub fn as_ptr(self) -> *mut ggml_cgraph {
        self.0.as_ptr()
    }

    fn raw(&self) -> &ggml_cgraph {
        // SAFETY: a handle is only made from a live graph (see from_raw).
        unsafe { self.0.as_ref() }
    }

    /// Sets the identifier by which backends recognise a graph they have seen (0.7).
    #[cfg(graph_uid)]
    pub fn set_uid(self, uid: u64) {
        // SAFETY: live graph (see from_raw), not borrowed elsewhere meanwhile.
        unsafe { (*self.0.as_ptr()).uid = uid }
    }

    /// The size the graph was created with (its node capacity).
    pub fn size(self) -> usize {
        self.raw().size.max(0) as usize
    }

    pub fn nodes<'a>(self) -> &'a [Tensor] {
        let g = self.raw();
        // SAFETY: a graph's node array holds n_nodes live, non-NULL tensors, which Tensor's
        // transparent layout can stand for.
        unsafe { tensor_slice(g.nodes, g.n_nodes) }
    }

    pub fn leafs<'a>(self) -> &'a [Tensor] {
        let g = self.raw();
        // SAFETY: a graph's leaf array holds n_leafs live, non-NULL tensors, which Tensor's
        // transparent layout can stand for.
        unsafe { tensor_slice(g.leafs, g.n_leafs) }
    }

    /// Nodes `[i0, i1)` as a graph of their own, without leafs or gradients (ggml's graph view).
    pub fn view(self, i0: usize, i1: usize) -> ggml_cgraph {
        let g = self.raw();
        ggml_cgraph {
            size: 0,
            n_nodes: (i1 - i0) as c_int,
            n_leafs: 0,
            nodes: g.nodes.wrapping_add(i0),
            grads: core::ptr::null_mut(),
            grad_accs: core::ptr::null_mut(),
            leafs: core::ptr::null_mut(),
            use_counts: g.use_counts,
            visited_hash_set: g.visited_hash_set,
            order: g.order,
            #[cfg(graph_uid)]
            uid: 0,
        }
    }

    /// How many nodes of the graph use `node` (ggml's use count), 0 when the graph keeps none.
    pub fn use_count(self, node: Tensor) -> i32 {
        let g = self.raw();
        let set = &g.visited_hash_set;
        if set.size == 0 || set.used.is_null() || g.use_counts.is_null() {
            return 0;
        }
        // SAFETY: a graph's hash set has `size` keys and a bitset of as many bits; the probe
        // only asks for slots below `size`.
        let used = |i: usize| unsafe { *set.used.add(i >> 5) } & (1 << (i & 31)) != 0;
        // SAFETY: the set's key array has `size` entries; the probe only asks for slots below
        // `size`.
        let key_at = |i: usize| unsafe { *set.keys.add(i) };
        match probe(set.size, node.as_ptr(), used, key_at) {
            // SAFETY: use_counts has an entry per slot of the hash set; i < size.
            Some(i) if used(i) => unsafe { *g.use_counts.add(i) },
            _ => 0,
        }
    }

    /// False when the graph was built for gradients (its grads array is set).
    #[cfg(meta)]
    pub fn has_grads(self) -> bool {
        !self.raw().grads.is_null()
    }

    /// Writes `nodes` into a graph made by ggml_new_graph_custom with room for them.
    pub fn set_nodes(self, nodes: impl ExactSizeIterator<Item = Tensor>) {
        // SAFETY: live graph, not used elsewhere meanwhile; the caller sized it for the nodes.
        unsafe {
            let g = &mut *self.0.as_ptr();
            let n = nodes.len();
            debug_assert!(n <= g.size.max(0) as usize);
            for (i, node) in nodes.enumerate() {
                *g.nodes.add(i) = node.as_ptr();
            }
            g.n_nodes = n as c_int;
        }
    }
}

/// ggml's hash probe (linear, from the address over 16) in a set of `size` slots: the slot that
/// holds `key`, else the first free slot on its path; None when every slot holds another key.
#[inline(always)]
fn probe(
    size: usize,
    key: *mut ggml_tensor,
    used: impl Fn(usize) -> bool,
    key_at: impl Fn(usize) -> *mut ggml_tensor,
) -> Option<usize> {
    let start = (key as usize >> 4) % size;
    let mut i = start;
    loop {
        if !used(i) || key_at(i) == key {
            return Some(i);
        }
        i = (i + 1) % size;
        if i == start {
            return None;
        }
    }
}

/// A graph this library owns over a list of nodes, with ggml's hash set and use counts (a
/// backend's fusion checks look nodes up in them) and, from 0.7, a new uid (a backend may cache
/// what it made of a graph by its uid). Boxed: C keeps pointers into it.
#[cfg(meta)]
pub struct OwnedGraph {
    nodes: Vec<Tensor>,
    keys: Vec<*mut ggml_tensor>,
    used: Vec<u32>,
    use_counts: Vec<i32>,
    graph: ggml_cgraph,
}

#[cfg(meta)]
impl OwnedGraph {
    /// The graph of `nodes`, each with its use count.
    pub fn new(nodes: &[(Tensor, i32)]) -> Result<alloc::boxed::Box<OwnedGraph>, OutOfMemory> {
        let size = 2 * nodes.len() + 1;
        let mut g = try_box(OwnedGraph {
            nodes: try_collect(nodes.iter().map(|&(t, _)| t))?,
            keys: try_filled(size, core::ptr::null_mut())?,
            used: try_filled(size.div_ceil(32), 0)?,
            use_counts: try_filled(size, 0)?,
            graph: graph_over(&mut Vec::new(), &mut Vec::new()),
        })?;
        for &(t, count) in nodes {
            let (used, keys) = (&g.used, &g.keys);
            let i = probe(size, t.as_ptr(), |i| used[i >> 5] & (1 << (i & 31)) != 0, |i| keys[i])
                .expect("a set of 2n + 1 slots has room for n keys");
            g.used[i >> 5] |= 1 << (i & 31);
            g.keys[i] = t.as_ptr();
            g.use_counts[i] = count;
        }
        let mut no_leafs = Vec::new();
        g.graph = graph_over(&mut g.nodes, &mut no_leafs);
        g.graph.use_counts = g.use_counts.as_mut_ptr();
        g.graph.visited_hash_set = ggml_hash_set { size, used: g.used.as_mut_ptr(), keys: g.keys.as_mut_ptr() };
        #[cfg(graph_uid)]
        {
            g.graph.uid = crate::base::ggml::next_graph_uid();
        }
        Ok(g)
    }

    /// The graph for C, live as long as `self`.
    pub fn as_ptr(&mut self) -> *mut ggml_cgraph {
        &mut self.graph
    }
}

/// # Safety
/// `ptr` points to `len` non-NULL live tensor pointers (or `len` <= 0).
unsafe fn tensor_slice<'a>(ptr: *mut *mut ggml_tensor, len: c_int) -> &'a [Tensor] {
    if len <= 0 || ptr.is_null() {
        &[]
    } else {
        // SAFETY: the caller's promise; Tensor is a transparent non-NULL pointer.
        unsafe { core::slice::from_raw_parts(ptr as *const Tensor, len as usize) }
    }
}

/// A graph over arrays the caller owns (the scheduler's graph for ggml-alloc).
pub fn graph_over(nodes: &mut Vec<Tensor>, leafs: &mut Vec<Tensor>) -> ggml_cgraph {
    ggml_cgraph {
        size: nodes.capacity().max(leafs.capacity()) as c_int,
        n_nodes: nodes.len() as c_int,
        n_leafs: leafs.len() as c_int,
        nodes: nodes.as_mut_ptr() as *mut *mut ggml_tensor,
        grads: core::ptr::null_mut(),
        grad_accs: core::ptr::null_mut(),
        leafs: leafs.as_mut_ptr() as *mut *mut ggml_tensor,
        use_counts: core::ptr::null_mut(),
        visited_hash_set: ggml_hash_set { size: 0, used: core::ptr::null_mut(), keys: core::ptr::null_mut() },
        order: 0,
        #[cfg(graph_uid)]
        uid: 0,
    }
}
