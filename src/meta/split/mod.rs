//! Split states: how a meta tensor's values are spread over the simple devices (safe,
//! plain-data logic); how a computed tensor's follows from its sources' is [`infer`]'s.

mod error;
mod infer;

pub use error::SplitError;
pub use infer::{infer, InferError, Shape, Source};

use crate::abi::*;
use core::ffi::CStr;

/// A tensor's split state: the C struct's fields, always with a repeat count per segment.
/// For a dimension axis, `ne[s * n_devices + j]` is device j's share of segment s, and segment s
/// repeats `nr[s]` times along the axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitState {
    pub axis: ggml_backend_meta_split_axis,
    pub ne: [i64; 16 * GGML_BACKEND_META_MAX_DEVICES],
    pub nr: [u32; 16],
    pub n_segments: u32,
}

impl SplitState {
    /// Device `j`'s part of segment `s`, of `n_devs` devices.
    pub fn part(&self, n_devs: usize, s: usize, j: usize) -> i64 {
        match self.ne.get(s * n_devs + j) {
            Some(&n) => n,
            None => past_the_state(),
        }
    }

    /// The parts of segment `s`, one per device of `n_devs`.
    pub fn segment(&self, n_devs: usize, s: usize) -> &[i64] {
        match self.ne.get(s * n_devs..(s + 1) * n_devs) {
            Some(parts) => parts,
            None => past_the_state(),
        }
    }

    /// [`Self::segment`], to write.
    pub fn segment_mut(&mut self, n_devs: usize, s: usize) -> &mut [i64] {
        match self.ne.get_mut(s * n_devs..(s + 1) * n_devs) {
            Some(parts) => parts,
            None => past_the_state(),
        }
    }

    /// How often segment `s` repeats.
    pub fn repeats(&self, s: usize) -> u32 {
        match self.nr.get(s) {
            Some(&nr) => nr,
            None => past_the_state(),
        }
    }
}

/// A segment or device past a state's 16 of each: the meta backend's own broken invariant (it
/// counts at most 16 of both), from one place rather than a panic location at every index.
#[cold]
#[inline(never)]
fn past_the_state() -> ! {
    panic!("{PREFIX}ggml_backend_meta: a segment or device past its split state")
}

impl From<ggml_backend_meta_split_state> for SplitState {
    /// The application's state; a family whose struct has no `nr` (meta_nr) repeats every
    /// segment once.
    fn from(c: ggml_backend_meta_split_state) -> SplitState {
        #[cfg(meta_nr)]
        let nr = c.nr;
        #[cfg(not(meta_nr))]
        let nr = [1; 16];
        SplitState { axis: c.axis, ne: c.ne, nr, n_segments: c.n_segments }
    }
}

/// A state without per-device shares: MIRRORED, PARTIAL, NONE, UNKNOWN, or a dimension axis
/// whose shares the caller fills in (one segment, repeated `nr` times). Out of line: a state is
/// 2 KB, and zeroing one at each of the rules' many uses costs more than the call.
#[inline(never)]
pub fn whole(axis: ggml_backend_meta_split_axis, nr: u32) -> SplitState {
    let mut state = SplitState { axis, ne: [0; 16 * GGML_BACKEND_META_MAX_DEVICES], nr: [0; 16], n_segments: 1 };
    state.nr[0] = nr;
    state
}

/// Whether `axis` is a tensor dimension (the tensor is sliced along it).
pub fn is_dim(axis: ggml_backend_meta_split_axis) -> bool {
    (0..GGML_MAX_DIMS as i32).contains(&axis)
}

/// The C name of a split axis, None for a value the enum does not have.
pub fn axis_name(axis: ggml_backend_meta_split_axis) -> Option<&'static CStr> {
    Some(match axis {
        GGML_BACKEND_SPLIT_AXIS_0 => c"0",
        GGML_BACKEND_SPLIT_AXIS_1 => c"1",
        GGML_BACKEND_SPLIT_AXIS_2 => c"2",
        GGML_BACKEND_SPLIT_AXIS_3 => c"3",
        GGML_BACKEND_SPLIT_AXIS_MIRRORED => c"MIRRORED",
        GGML_BACKEND_SPLIT_AXIS_PARTIAL => c"PARTIAL",
        GGML_BACKEND_SPLIT_AXIS_NONE => c"NONE",
        GGML_BACKEND_SPLIT_AXIS_UNKNOWN => c"UNKNOWN",
        _ => return None,
    })
}

fn segments(state: &SplitState) -> usize {
    (state.n_segments as usize).min(state.nr.len())
}

/// Several segments, or one repeated: a device's part of the axis is not one run.
pub fn is_segmented(state: &SplitState) -> bool {
    state.n_segments != 1 || state.nr[0] != 1
}

/// Device `j`'s share of the split axis: its part of every segment, times the repeats.
pub fn share(state: &SplitState, n_devs: usize, j: usize) -> i64 {
    (0..segments(state)).map(|s| state.part(n_devs, s, j) * i64::from(state.repeats(s))).sum()
}

/// The same segments: each device's part of each, and their repeats.
fn same_segments(a: &SplitState, b: &SplitState, n_devs: usize) -> bool {
    let n = segments(b);
    a.n_segments == b.n_segments && a.ne[..n * n_devs] == b.ne[..n * n_devs] && a.nr[..n] == b.nr[..n]
}

/// Same axis and the same share on every device (segments may differ).
pub fn states_equal(a: &SplitState, b: &SplitState, n_devs: usize) -> bool {
    a.axis == b.axis && (0..n_devs).all(|j| share(a, n_devs, j) == share(b, n_devs, j))
}

/// Checks a state the application's callback gave for a tensor of extent `ne` along each
/// dimension (and block size `blck` along dimension 0).
pub fn check_static(state: &SplitState, ne: &[i64; 4], blck: i64, n_devs: usize) -> Result<(), SplitError> {
    if is_dim(state.axis) {
        if state.n_segments as usize > 16 || state.n_segments == 0 {
            return Err(SplitError::with("n_segments must be 1 to 16", &[i64::from(state.n_segments)]));
        }
        let granularity = if state.axis == GGML_BACKEND_SPLIT_AXIS_0 { blck } else { 1 };
        let parts = &state.ne[..segments(state) * n_devs];
        if let Some(bad) = parts.iter().find(|&&n| n < 0) {
            return Err(SplitError::with("a share is negative", &[*bad]));
        }
        if let Some(bad) = parts.iter().find(|&&n| n.checked_rem(granularity) != Some(0)) {
            return Err(SplitError::with(
                "a share is not a multiple of the block size (share, block size)",
                &[*bad, granularity],
            ));
        }
        // Checked: the application's shares and repeats may be anything.
        let total = parts
            .iter()
            .enumerate()
            .try_fold(0i64, |sum, (i, &n)| n.checked_mul(i64::from(state.nr[i / n_devs]))?.checked_add(sum))
            .ok_or("the shares times their repeats overflow")?;
        if total != ne[state.axis as usize] {
            return Err(SplitError::with(
                "the shares do not add up to the tensor's extent (their sum, the extent, the axis)",
                &[total, ne[state.axis as usize], i64::from(state.axis)],
            ));
        }
    } else if state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && (state.n_segments != 1 || state.nr[0] != 1) {
        return Err("a PARTIAL state has one segment, repeated once".into());
    } else if axis_name(state.axis).is_none() {
        return Err(SplitError::with("unknown split axis", &[i64::from(state.axis)]));
    }
    Ok(())
}

/// Extent and strides of device `j`'s slice of a tensor (`ne`, `nb`) split as `state`: the
/// split axis shrinks to the device's share and the strides above it shrink in proportion.
pub fn slice_layout(
    state: &SplitState,
    ne: &[i64; 4],
    nb: &[usize; 4],
    n_devs: usize,
    j: usize,
) -> ([i64; 4], [usize; 4]) {
    let (mut ne_j, mut nb_j) = (*ne, *nb);
    if is_dim(state.axis) && ne[state.axis as usize] != 0 {
        let axis = state.axis as usize;
        ne_j[axis] = share(state, n_devs, j);
        for i in 0..GGML_MAX_DIMS {
            if nb[i] > nb[axis] {
                nb_j[i] = (nb[i] as i64 * ne_j[axis] / ne[axis]) as usize;
            }
        }
    }
    (ne_j, nb_j)
}

/// Each device's elements of a range of a split axis: where they start in its slice, and how
/// many (the devices past the meta device's count have none).
pub type Parts = [(i64, i64); GGML_BACKEND_META_MAX_DEVICES];

/// Device j's elements among indices `[a, b)` of an axis split as `state`: for each device,
/// where they start in its slice and how many there are (each device's elements of a range are
/// one run of its slice), and the range's split state. That is one segment when, in the range's
/// order, no device's elements come after a later device's (a part of one segment, or of a
/// device's consecutive parts); the segments it covers when it covers whole repeats of them;
/// None otherwise (parts of several segments).
pub fn range_parts(state: &SplitState, n_devs: usize, a: i64, b: i64) -> Option<(Parts, SplitState)> {
    let mut parts: Parts = [(0, 0); GGML_BACKEND_META_MAX_DEVICES];
    let (mut at, mut last_dev, mut in_order) = (0i64, 0usize, true);
    let (mut whole_repeats, mut covered) = (true, whole(state.axis, 1));
    covered.n_segments = 0;
    for s in 0..segments(state) {
        let seg_len: i64 = state.segment(n_devs, s).iter().sum();
        if seg_len == 0 {
            // Nothing on any device, however often repeated.
            continue;
        }
        for _ in 0..state.repeats(s) {
            let (start, end) = (at, at + seg_len);
            if start < b && a < end {
                whole_repeats &= a <= start && end <= b;
                let k = covered.n_segments as usize;
                if k > 0 && covered.segment(n_devs, k - 1) == state.segment(n_devs, s) {
                    covered.nr[k - 1] += 1;
                } else if k < covered.nr.len() {
                    covered.segment_mut(n_devs, k).copy_from_slice(state.segment(n_devs, s));
                    covered.nr[k] = 1;
                    covered.n_segments += 1;
                } else {
                    whole_repeats = false;
                }
            }
            for (j, part) in parts.iter_mut().take(n_devs).enumerate() {
                let len = state.part(n_devs, s, j);
                let (lo, hi) = (at.max(a), (at + len).min(b));
                // The device's elements before the range: where its part starts in its slice.
                part.0 += (a - at).min(len).max(0);
                if lo < hi {
                    in_order &= j >= last_dev;
                    last_dev = j;
                    part.1 += hi - lo;
                }
                at += len;
            }
        }
    }
    if in_order {
        let mut one = whole(state.axis, 1);
        for (j, &(_, count)) in parts.iter().take(n_devs).enumerate() {
            one.ne[j] = count;
        }
        Some((parts, one))
    } else if whole_repeats {
        Some((parts, covered))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(axis: i32, shares: &[i64]) -> SplitState {
        let mut state = whole(axis, 1);
        state.ne[..shares.len()].copy_from_slice(shares);
        state
    }

    /// `n` segments along `axis`, each once, with the devices' shares segment by segment.
    fn segments(axis: i32, n: u32, shares: &[i64]) -> SplitState {
        let mut state = split(axis, shares);
        state.n_segments = n;
        state.nr[..n as usize].fill(1);
        state
    }

    fn shape(op: i32, ne: [i64; 4]) -> Shape {
        let n_dims = (1..=4).rev().find(|&d| ne[d - 1] != 1).unwrap_or(1) as i32;
        let mut nb = [4usize; 4];
        for d in 1..4 {
            nb[d] = nb[d - 1] * ne[d - 1] as usize;
        }
        Shape { op, ne, nb, op_params: [0; 16], n_dims, contiguous: true, permuted: false }
    }

    fn sources(list: &[(Shape, SplitState)]) -> [Source; GGML_MAX_SRC] {
        let mut srcs = [None; GGML_MAX_SRC];
        for (i, s) in list.iter().enumerate() {
            srcs[i] = Some(*s);
        }
        srcs
    }

    #[test]
    fn a_range_of_a_split_axis_is_each_devices_exact_run_or_none() {
        let parts =
            |state: &SplitState, a: i64, b: i64| range_parts(state, 2, a, b).map(|(parts, _)| parts[..2].to_vec());
        // One segment, 3 + 3: a device's part, across the boundary, the other device's part.
        let halves = split(0, &[3, 3]);
        assert_eq!(parts(&halves, 0, 2), Some(vec![(0, 2), (0, 0)]));
        assert_eq!(parts(&halves, 2, 4), Some(vec![(2, 1), (0, 1)]));
        assert_eq!(parts(&halves, 4, 6), Some(vec![(3, 0), (1, 2)]));
        assert_eq!(range_parts(&halves, 2, 2, 4).unwrap().1, split(0, &[1, 1]));
        // Three segments of 1 + 1: a whole segment, one device's row, rows of two segments.
        let qkv = segments(1, 3, &[1, 1, 1, 1, 1, 1]);
        assert_eq!(parts(&qkv, 2, 4), Some(vec![(1, 1), (1, 1)]));
        assert_eq!(parts(&qkv, 1, 2), Some(vec![(1, 0), (0, 1)]));
        assert_eq!(parts(&qkv, 1, 3), None);
        assert_eq!(parts(&qkv, 0, 3), None);
        // Two whole segments alike: one segment repeated twice.
        let mut two = split(1, &[1, 1]);
        two.nr[0] = 2;
        assert_eq!(parts(&qkv, 2, 6), Some(vec![(1, 2), (1, 2)]));
        assert_eq!(range_parts(&qkv, 2, 2, 6).unwrap().1, two);
        // An empty segment repeated without end costs nothing.
        let mut empty = split(0, &[0, 0, 3, 3]);
        empty.n_segments = 2;
        empty.nr[..2].copy_from_slice(&[u32::MAX, 1]);
        assert_eq!(parts(&empty, 2, 4), Some(vec![(2, 1), (0, 1)]));
    }

    #[test]
    fn every_axis_has_its_c_name_and_others_have_none() {
        let names: Vec<_> =
            [0, 1, 2, 3, 10, 11, 98, 99].iter().map(|&a| axis_name(a).unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["0", "1", "2", "3", "MIRRORED", "PARTIAL", "NONE", "UNKNOWN"]);
        assert!(axis_name(4).is_none() && axis_name(-1).is_none() && axis_name(12).is_none());
    }

    #[test]
    fn a_device_share_sums_its_part_of_every_segment_times_repeats() {
        // Two devices, segment 0 (2+1) once, segment 1 (1+1) twice: 2+2=4 and 1+2=3.
        let mut state = split(1, &[2, 1, 1, 1]);
        state.n_segments = 2;
        state.nr[1] = 2;
        assert_eq!((share(&state, 2, 0), share(&state, 2, 1)), (4, 3));
    }

    #[test]
    fn a_slice_shrinks_the_split_axis_and_the_strides_above_it() {
        let state = split(1, &[4, 2]);
        let (ne, nb) = slice_layout(&state, &[8, 6, 1, 1], &[4, 32, 192, 192], 2, 1);
        assert_eq!(ne, [8, 2, 1, 1]);
        assert_eq!(nb, [4, 32, 64, 64]);
        let (ne, nb) =
            slice_layout(&whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1), &[8, 6, 1, 1], &[4, 32, 192, 192], 2, 1);
        assert_eq!((ne, nb), ([8, 6, 1, 1], [4, 32, 192, 192]));
    }

    #[test]
    fn static_states_must_add_up_to_the_tensor() {
        assert!(check_static(&split(1, &[4, 2]), &[8, 6, 1, 1], 1, 2).is_ok());
        assert!(check_static(&split(1, &[4, 1]), &[8, 6, 1, 1], 1, 2).is_err());
        assert!(check_static(&split(0, &[3, 5]), &[8, 6, 1, 1], 2, 2).is_err());
        assert!(check_static(&whole(42, 1), &[8, 6, 1, 1], 1, 2).is_err());
        // shares that add up only with a negative one, or only by overflowing
        assert!(check_static(&split(1, &[-2, 8]), &[8, 6, 1, 1], 1, 2).is_err());
        assert!(check_static(&split(1, &[i64::MAX, i64::MAX, 10]), &[8, 8, 1, 1], 1, 3).is_err());
    }

    #[test]
    fn weight_rows_split_times_mirrored_input_splits_the_result_rows() {
        let w = (shape(op::NONE, [8, 6, 1, 1]), split(1, &[4, 2]));
        let x = (shape(op::NONE, [8, 2, 1, 1]), whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1));
        let out = infer(&shape(op::MUL_MAT, [6, 2, 1, 1]), &sources(&[w, x]), 2, true).unwrap();
        assert_eq!((out.axis, out.ne[0], out.ne[1]), (0, 4, 2));
    }

    #[test]
    fn a_fused_weight_gives_its_segments_to_the_product_and_to_element_wise_ops() {
        // q, k and v rows of one weight: 1 + 1 rows each, device 0's first in each segment
        let qkv = segments(1, 3, &[1, 1, 1, 1, 1, 1]);
        let w = (shape(op::NONE, [8, 6, 1, 1]), qkv);
        let x = (shape(op::NONE, [8, 2, 1, 1]), whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1));
        let out = infer(&shape(op::MUL_MAT, [6, 2, 1, 1]), &sources(&[w, x]), 2, true).unwrap();
        assert_eq!((out.axis, out.n_segments, &out.ne[..6], &out.nr[..3]), (0, 3, &qkv.ne[..6], &qkv.nr[..3]));
        let scaled =
            infer(&shape(op::SCALE, [6, 2, 1, 1]), &sources(&[(shape(op::MUL_MAT, [6, 2, 1, 1]), out)]), 2, true);
        assert_eq!(scaled.unwrap(), out);
        // a source split in one run of the same totals lies differently on the devices
        let product = (shape(op::MUL_MAT, [6, 2, 1, 1]), out);
        let one_run = (shape(op::NONE, [6, 2, 1, 1]), split(0, &[3, 3]));
        assert!(infer(&shape(op::ADD, [6, 2, 1, 1]), &sources(&[product, one_run]), 2, true).is_err());
    }

    #[test]
    fn a_reshape_of_a_fused_product_into_heads_keeps_its_segments() {
        // q, k and v of 4 rows each, 2 + 2 per device; the product [12, 2] reshaped into heads
        // of 2: [2, 6, 2], one head of q, k and v per device
        let qkv = segments(0, 3, &[2, 2, 2, 2, 2, 2]);
        let product = (shape(op::MUL_MAT, [12, 2, 1, 1]), qkv);
        let heads = infer(&shape(op::RESHAPE, [2, 6, 2, 1]), &sources(&[product]), 2, true).unwrap();
        assert_eq!((heads.axis, heads.n_segments, &heads.ne[..6], &heads.nr[..3]), (1, 3, &[1; 6][..], &[1; 3][..]));
        // a CONT, and a contiguous view of all of it, keep the segments as they are
        let same = infer(&shape(op::CONT, [12, 2, 1, 1]), &sources(&[product]), 2, true).unwrap();
        assert_eq!(same, qkv);
        let back = (shape(op::RESHAPE, [2, 6, 2, 1]), heads);
        assert_eq!(infer(&shape(op::VIEW, [12, 2, 1, 1]), &sources(&[back]), 2, true).unwrap(), qkv);
        // flattened: the three segments once per token
        let flat = infer(&shape(op::RESHAPE, [24, 1, 1, 1]), &sources(&[product]), 2, true).unwrap();
        assert_eq!((flat.axis, flat.n_segments, &flat.ne[..12]), (0, 6, &[2; 12][..]));
        // heads of 4 rows would cut through each device's 2 rows of a segment
        assert!(infer(&shape(op::RESHAPE, [4, 3, 2, 1]), &sources(&[product]), 2, true).is_err());
        // more than 16 segments
        let long = (shape(op::MUL_MAT, [12, 6, 1, 1]), qkv);
        assert!(infer(&shape(op::RESHAPE, [72, 1, 1, 1]), &sources(&[long]), 2, true).is_err());
    }

    #[test]
    fn a_product_over_a_split_inner_dimension_is_partial_until_reduced() {
        let w = (shape(op::NONE, [6, 4, 1, 1]), split(0, &[4, 2]));
        let h = (shape(op::MUL_MAT, [6, 2, 1, 1]), split(0, &[4, 2]));
        let node = shape(op::MUL_MAT, [4, 2, 1, 1]);
        assert_eq!(infer(&node, &sources(&[w, h]), 2, false).unwrap().axis, GGML_BACKEND_SPLIT_AXIS_PARTIAL);
        assert_eq!(infer(&node, &sources(&[w, h]), 2, true).unwrap().axis, GGML_BACKEND_SPLIT_AXIS_MIRRORED);
    }

    #[test]
    fn adding_a_broadcast_mirrored_bias_keeps_the_split() {
        let a = (shape(op::MUL_MAT, [6, 2, 1, 1]), split(1, &[1, 1]));
        let b = (shape(op::NONE, [6, 1, 1, 1]), whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1));
        let out = infer(&shape(op::ADD, [6, 2, 1, 1]), &sources(&[a, b]), 2, true).unwrap();
        assert_eq!((out.axis, out.ne[0], out.ne[1]), (1, 1, 1));
    }

    #[test]
    fn differently_split_sources_of_an_add_are_refused() {
        let a = (shape(op::NONE, [6, 2, 1, 1]), split(0, &[4, 2]));
        let b = (shape(op::NONE, [6, 2, 1, 1]), split(1, &[1, 1]));
        assert!(infer(&shape(op::ADD, [6, 2, 1, 1]), &sources(&[a, b]), 2, true).is_err());
    }

    #[test]
    fn transpose_swaps_axes_0_and_1_and_reshape_follows_the_outer_axis() {
        let a = (shape(op::NONE, [6, 4, 1, 1]), split(1, &[3, 1]));
        let t = infer(&shape(op::TRANSPOSE, [4, 6, 1, 1]), &sources(&[a]), 2, true).unwrap();
        assert_eq!((t.axis, t.ne[0], t.ne[1]), (0, 3, 1));
        let r = infer(&shape(op::RESHAPE, [24, 1, 1, 1]), &sources(&[a]), 2, true).unwrap();
        assert_eq!((r.axis, r.ne[0], r.ne[1]), (0, 18, 6));
    }

    #[test]
    fn concatenating_a_split_tensor_with_a_mirrored_one_keeps_the_split_off_the_concat_axis() {
        let a = (shape(op::NONE, [6, 4, 1, 1]), split(1, &[3, 1]));
        let b = (shape(op::NONE, [2, 4, 1, 1]), whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1));
        let mut node = shape(op::CONCAT, [8, 4, 1, 1]);
        let out = infer(&node, &sources(&[a, b]), 2, true).unwrap();
        assert_eq!((out.axis, out.ne[0], out.ne[1]), (1, 3, 1));
        node.op_params[0] = 1;
        assert!(infer(&node, &sources(&[a, b]), 2, true).is_err());
    }

    #[test]
    fn attention_split_by_heads_gives_rows_of_the_result() {
        let q = (shape(op::NONE, [64, 5, 8, 1]), split(2, &[4, 4]));
        let kv = (shape(op::NONE, [64, 7, 8, 1]), split(2, &[4, 4]));
        let out = infer(&shape(op::FLASH_ATTN_EXT, [64, 8, 5, 1]), &sources(&[q, kv, kv]), 2, true).unwrap();
        assert_eq!((out.axis, out.ne[0], out.ne[1]), (1, 4, 4));
        let mirrored = (shape(op::NONE, [64, 5, 8, 1]), whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1));
        assert!(infer(&shape(op::FLASH_ATTN_EXT, [64, 8, 5, 1]), &sources(&[mirrored, kv, kv]), 2, true).is_err());
    }

    #[test]
    fn row_wise_ops_refuse_rows_split_along_axis_0() {
        let by_columns = (shape(op::NONE, [6, 4, 1, 1]), split(0, &[3, 3]));
        let by_rows = (shape(op::NONE, [6, 4, 1, 1]), split(1, &[2, 2]));
        for row_wise in [op::SOFT_MAX, op::SOFT_MAX_BACK, op::NORM, op::L2_NORM, op::SUM_ROWS] {
            assert!(infer(&shape(row_wise, [6, 4, 1, 1]), &sources(&[by_columns]), 2, true).is_err(), "op {row_wise}");
            let rows = infer(&shape(row_wise, [6, 4, 1, 1]), &sources(&[by_rows]), 2, true).unwrap();
            assert_eq!((rows.axis, rows.ne[0], rows.ne[1]), (1, 2, 2), "op {row_wise}");
        }
        // GLU of one source halves each row; of two, it is element-wise
        assert!(infer(&shape(op::GLU, [3, 4, 1, 1]), &sources(&[by_columns]), 2, true).is_err());
        assert!(infer(&shape(op::GLU, [6, 4, 1, 1]), &sources(&[by_columns, by_columns]), 2, true).is_ok());
        assert!(infer(&shape(op::GLU, [3, 4, 1, 1]), &sources(&[by_rows]), 2, true).is_ok());
    }

    #[test]
    fn a_repeat_along_the_split_axis_is_refused_and_across_it_keeps_the_split() {
        let by_rows = (shape(op::NONE, [6, 4, 1, 1]), split(1, &[2, 2]));
        assert!(infer(&shape(op::REPEAT, [6, 8, 1, 1]), &sources(&[by_rows]), 2, true).is_err());
        let across = infer(&shape(op::REPEAT, [12, 4, 1, 1]), &sources(&[by_rows]), 2, true).unwrap();
        assert_eq!((across.axis, across.ne[0], across.ne[1]), (1, 2, 2));
    }

    #[test]
    fn unsupported_ops_are_reported_not_guessed() {
        let a = (shape(op::NONE, [6, 4, 1, 1]), whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1));
        // GGML_OP_COUNT, after the last op
        assert!(infer(&shape(op::GLU + 1, [6, 4, 1, 1]), &sources(&[a]), 2, true).is_err());
        // 0.7's COL2IM_1D, which its meta backend does not handle either (0.6's op 55 is CONV_2D)
        if cfg!(op_col2im_1d) {
            assert!(infer(&shape(op::IM2COL_3D + 1, [6, 4, 1, 1]), &sources(&[a]), 2, true).is_err());
        }
    }
}
