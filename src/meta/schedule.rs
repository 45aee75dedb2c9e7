//! Where a meta backend cuts a graph into per-device subgraphs (safe, plain-data logic): after
//! each PARTIAL node, whose partial sums are then added up across devices, and at the end.
//!
//! A reduction can wait for a few nodes: operations that are linear in the partial sums give the
//! same result on unreduced data (a MUL by a MIRRORED tensor, an ADD_ID of a PARTIAL bias, the
//! per-expert views and ADDs that sum a mixture of experts), and two independent PARTIAL
//! branches that are added together need only one reduction of their sum. Waiting saves
//! transfers, and an ADD_ID of a PARTIAL bias is only right before the reduction.

use crate::abi::op;
use crate::abi::*;
use crate::base::fallible::{try_vec, OutOfMemory};
use alloc::vec::Vec;

/// A tensor a node reads, with its split axis as the meta backend sees it (unreduced sums
/// PARTIAL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    pub id: usize,
    pub axis: ggml_backend_meta_split_axis,
}

/// A graph node: what placing the cuts needs of it.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The tensor's identity (its address).
    pub id: usize,
    pub op: ggml_op,
    pub r#type: ggml_type,
    pub ne: [i64; 4],
    pub nb: [usize; 4],
    pub srcs: [Option<Src>; GGML_MAX_SRC],
    pub view_src: Option<usize>,
    pub view_offs: usize,
    /// How many nodes use it (ggml's use count).
    pub use_count: i32,
    /// Its split axis; None for a view of a host tensor, which every device takes as it is.
    pub axis: Option<ggml_backend_meta_split_axis>,
}

/// The exclusive ends of the subgraphs; the sums are reduced after every subgraph but the last.
/// `compute[j][i]`: whether device j computes node i; a device that skips a PARTIAL node also
/// skips the nodes whose reduction is delayed with it (they are cleared here).
pub fn subgraph_ends(nodes: &[Node], compute: &mut [Vec<bool>]) -> Result<Vec<usize>, OutOfMemory> {
    let n = nodes.len();
    // At most one end per node.
    let mut ends = try_vec(n)?;
    let mut i = 0;
    while i < n {
        let partial = nodes[i].axis == Some(GGML_BACKEND_SPLIT_AXIS_PARTIAL);
        if nodes[i].axis.is_none() || !(partial || i + 1 == n) {
            i += 1;
            continue;
        }
        let delayed = delayed_reduction(nodes, compute, i);
        for device in compute.iter_mut() {
            if !device[i] {
                device[i + 1..=delayed].fill(false);
            }
        }
        ends.push(delayed + 1);
        i = delayed + 1;
    }
    // A graph that ends with host views: they join the last subgraph.
    if ends.last() != Some(&n) && n > 0 {
        match ends.last_mut() {
            Some(last) => *last = n,
            None => ends.push(n),
        }
    }
    Ok(ends)
}

fn axis_of(node: &Node) -> Option<ggml_backend_meta_split_axis> {
    node.axis
}

fn src_is(node: &Node, slot: usize, id: usize) -> bool {
    node.srcs[slot].is_some_and(|s| s.id == id)
}

fn src_axis(node: &Node, slot: usize) -> Option<ggml_backend_meta_split_axis> {
    node.srcs[slot].map(|s| s.axis)
}

/// The last node of the branch that starts at PARTIAL node `i` and can run on unreduced sums.
fn delayed_branch(nodes: &[Node], i: usize) -> usize {
    const MIRRORED: i32 = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    let n = nodes.len();
    let (mut id, mut last_safe) = (i, i);
    let mut node = nodes[id];
    let mut n_used = nodes[id].use_count;

    // Passes over MIRRORED nodes that read only MIRRORED tensors other than `node`.
    let skip_unrelated = |id: &mut usize, node: &Node| {
        while *id + 1 < n {
            let next = &nodes[*id + 1];
            let unrelated = axis_of(next) == Some(MIRRORED)
                && next.srcs.iter().flatten().all(|s| s.id != node.id && s.axis == MIRRORED);
            if !unrelated {
                break;
            }
            *id += 1;
        }
    };

    skip_unrelated(&mut id, &node);
    if id + 1 >= n {
        return last_safe;
    }
    let next = nodes[id + 1];
    if next.op == op::ADD_ID
        && src_is(&next, 0, node.id)
        && src_axis(&next, 1) == Some(GGML_BACKEND_SPLIT_AXIS_PARTIAL)
        && src_axis(&next, 2) == Some(MIRRORED)
    {
        node = next;
        id += 1;
        last_safe = id;
        n_used = next.use_count;
    }
    loop {
        skip_unrelated(&mut id, &node);
        if id + 1 >= n {
            return last_safe;
        }
        let next = nodes[id + 1];
        if next.op == op::MUL && src_is(&next, 0, node.id) && src_axis(&next, 1) == Some(MIRRORED) {
            node = next;
            id += 1;
            last_safe = id;
            n_used = next.use_count;
        } else {
            break;
        }
    }

    // A mixture of experts: one view per expert slot, then a chain of ADDs summing them.
    let n_used_i = i64::from(n_used);
    if n_used_i != node.ne[1] || id as i64 + 2 * n_used_i > n as i64 {
        return last_safe;
    }
    let at = |index: i64| usize::try_from(index).ok().and_then(|k| nodes.get(k)).map(|t| t.id);
    for k in 0..n_used as usize {
        let next = &nodes[id + 1];
        let is_slot_view = next.op == op::VIEW
            && next.view_src == Some(node.id)
            && next.view_offs == k * node.nb[1]
            && next.ne[0] == node.ne[0]
            && next.ne[1] == node.ne[2]
            && next.nb[1] == node.nb[2]
            && next.use_count == 1;
        if !is_slot_view {
            return last_safe;
        }
        id += 1;
    }
    let add_of = |next: &Node, a: Option<usize>, b: Option<usize>| {
        next.op == op::ADD
            && next.srcs[0].map(|s| s.id) == a
            && a.is_some()
            && next.srcs[1].map(|s| s.id) == b
            && b.is_some()
            && next.use_count == 1
    };
    let first_view = |id: usize| at(id as i64 - (n_used_i - 1));
    let second_view = |id: usize| at(id as i64 - (n_used_i - 2));
    if !add_of(&nodes[id + 1], first_view(id), second_view(id)) {
        return last_safe;
    }
    id += 1;
    for _ in 0..(n_used_i - 2).max(0) {
        if !add_of(&nodes[id + 1], Some(nodes[id].id), second_view(id)) {
            return last_safe;
        }
        id += 1;
    }
    id
}

/// Where the reduction of PARTIAL node `i` can happen: at the end of its branch, or after the
/// ADD that sums it with a later independent PARTIAL branch.
fn delayed_reduction(nodes: &[Node], compute: &[Vec<bool>], i: usize) -> usize {
    let n = nodes.len();
    let delayed = delayed_branch(nodes, i);
    let node = nodes[delayed];
    // Two branches are reduced once from 0.7 (meta_merged_reduction); 0.6 reduces each.
    if node.use_count != 1 || !cfg!(meta_merged_reduction) {
        return delayed;
    }
    for id in delayed + 1..n {
        let next = &nodes[id];
        if next.view_src == Some(node.id) || next.srcs.iter().flatten().any(|s| s.id == node.id) {
            return delayed;
        }
        if axis_of(next) != Some(GGML_BACKEND_SPLIT_AXIS_PARTIAL) {
            continue;
        }
        let other_delayed = delayed_branch(nodes, id);
        let other = nodes[other_delayed];
        if other.use_count != 1 || other_delayed + 1 >= n {
            return delayed;
        }
        let sum = &nodes[other_delayed + 1];
        let sums_both = (src_is(sum, 0, node.id) && src_is(sum, 1, other.id))
            || (src_is(sum, 0, other.id) && src_is(sum, 1, node.id));
        if sum.op != op::ADD
            || node.ne != other.ne
            || node.r#type != other.r#type
            || sum.r#type != node.r#type
            || !sums_both
            || axis_of(sum) != Some(GGML_BACKEND_SPLIT_AXIS_MIRRORED)
        {
            return delayed;
        }
        if compute.iter().any(|device| device[i] != device[id]) {
            return delayed;
        }
        return other_delayed + 1;
    }
    delayed
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARTIAL: i32 = GGML_BACKEND_SPLIT_AXIS_PARTIAL;
    const MIRRORED: i32 = GGML_BACKEND_SPLIT_AXIS_MIRRORED;

    fn node(id: usize, op: i32, axis: i32, srcs: &[(usize, i32)]) -> Node {
        let mut s = [None; GGML_MAX_SRC];
        for (k, &(id, axis)) in srcs.iter().enumerate() {
            s[k] = Some(Src { id, axis });
        }
        Node {
            id,
            op,
            r#type: 0,
            ne: [4, 2, 1, 1],
            nb: [4, 16, 32, 32],
            srcs: s,
            view_src: None,
            view_offs: 0,
            use_count: 1,
            axis: Some(axis),
        }
    }

    fn all_compute(n_devs: usize, n: usize) -> Vec<Vec<bool>> {
        vec![vec![true; n]; n_devs]
    }

    #[test]
    fn a_graph_is_cut_after_each_partial_node_and_at_the_end() {
        // 100 = mul_mat (PARTIAL), 101 = add(100, bias) (MIRRORED), 102 = mul_mat (PARTIAL), 103 = scale
        let nodes = [
            node(100, op::MUL_MAT, PARTIAL, &[(1, 0), (2, 0)]),
            node(101, op::ADD, MIRRORED, &[(100, MIRRORED), (3, MIRRORED)]),
            node(102, op::MUL_MAT, PARTIAL, &[(4, 0), (5, 0)]),
            node(103, op::SCALE, MIRRORED, &[(102, MIRRORED)]),
        ];
        assert_eq!(subgraph_ends(&nodes, &mut all_compute(2, 4)).unwrap(), [1, 3, 4]);
    }

    #[test]
    fn a_partial_bias_and_a_mirrored_scale_are_applied_before_the_reduction() {
        let nodes = [
            node(100, op::MUL_MAT, PARTIAL, &[(1, 0), (2, 0)]),
            node(101, op::ADD_ID, PARTIAL, &[(100, PARTIAL), (3, PARTIAL), (4, MIRRORED)]),
            node(102, op::MUL, PARTIAL, &[(101, PARTIAL), (5, MIRRORED)]),
            node(103, op::SOFT_MAX, MIRRORED, &[(102, MIRRORED)]),
        ];
        assert_eq!(subgraph_ends(&nodes, &mut all_compute(2, 4)).unwrap(), [3, 4]);
    }

    #[test]
    fn two_partial_branches_added_together_are_reduced_once() {
        let nodes = [
            node(100, op::MUL_MAT, PARTIAL, &[(1, 0), (2, 0)]),
            node(101, op::MUL_MAT, PARTIAL, &[(3, 0), (4, 0)]),
            node(102, op::ADD, MIRRORED, &[(100, MIRRORED), (101, MIRRORED)]),
            node(103, op::SCALE, MIRRORED, &[(102, MIRRORED)]),
        ];
        let mut compute = all_compute(2, 4);
        // 0.6 reduces each branch.
        let merged: &[usize] = if cfg!(meta_merged_reduction) { &[3, 4] } else { &[1, 2, 4] };
        assert_eq!(subgraph_ends(&nodes, &mut compute).unwrap(), merged);
        // A device that skips one branch but not the other cannot share the reduction.
        compute[1][1] = false;
        assert_eq!(subgraph_ends(&nodes, &mut compute).unwrap(), [1, 2, 4]);
    }

    #[test]
    fn a_device_that_skips_a_partial_node_skips_its_delayed_branch_too() {
        let nodes = [
            node(100, op::MUL_MAT, PARTIAL, &[(1, 0), (2, 0)]),
            node(101, op::MUL, PARTIAL, &[(100, PARTIAL), (5, MIRRORED)]),
            node(102, op::SCALE, MIRRORED, &[(101, MIRRORED)]),
        ];
        let mut compute = all_compute(2, 3);
        compute[1][0] = false;
        assert_eq!(subgraph_ends(&nodes, &mut compute).unwrap(), [2, 3]);
        assert_eq!(compute[1], [false, false, true]);
    }

    #[test]
    fn trailing_host_views_join_the_last_subgraph() {
        let mut view = node(101, op::VIEW, MIRRORED, &[]);
        view.axis = None;
        let nodes = [node(100, op::MUL_MAT, MIRRORED, &[(1, 1), (2, MIRRORED)]), view];
        assert_eq!(subgraph_ends(&nodes, &mut all_compute(2, 2)).unwrap(), [2]);
    }
}
