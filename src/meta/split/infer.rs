//! How a computed tensor's split state follows from its sources' (safe, plain-data logic): one
//! rule per kind of op.

use super::{is_dim, is_segmented, same_segments, segments, share, states_equal, whole, SplitState};
use crate::abi::*;

/// What inference needs to know about a tensor besides its split state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shape {
    pub op: ggml_op,
    pub ne: [i64; 4],
    pub nb: [usize; 4],
    pub op_params: [i32; GGML_MAX_OP_PARAMS / 4],
    pub n_dims: i32,
    pub contiguous: bool,
    pub permuted: bool,
}

/// A source slot as inference sees it: its shape and state, or None for an empty slot (or the
/// tensor itself, which ggml allows as a source of in-place ops).
pub type Source = Option<(Shape, SplitState)>;

/// Why inference cannot give a state (the caller refuses with it).
pub type InferError = super::SplitError;

/// The split state of a computed tensor `node` from those of its sources, for every op of
/// 0.6's and 0.7.4's ggml but 0.7's COL2IM_1D (which 0.7.4's meta backend does not handle
/// either). Each kind of op has its rule, tried in turn (an op belongs to one kind).
/// `assume_sync`: whether partial sums count as already reduced (as a consumer sees them).
pub fn infer(
    node: &Shape,
    srcs: &[Source; GGML_MAX_SRC],
    n_devs: usize,
    assume_sync: bool,
) -> Result<SplitState, InferError> {
    if let Some(state) = reshape_of_segments(node, srcs, n_devs)? {
        return Ok(state);
    }
    let mut result = element_wise(node, srcs, n_devs)
        .or_else(|| on_whole_sources(node, srcs, n_devs))
        .or_else(|| row_wise(node, srcs))
        .or_else(|| combining(node, srcs, n_devs, assume_sync))
        .or_else(|| layout(node, srcs, n_devs))
        .or_else(|| rows(node, srcs, n_devs))
        .or_else(|| with_a_rule_of_their_own(node, srcs, n_devs))
        .unwrap_or_else(|| Err(InferError::with("op not supported by the meta backend", &[node.op as i64])))?;
    if is_dim(result.axis) {
        take_over_ratio(&mut result, node, srcs, n_devs)?;
    }
    Ok(result)
}

/// The state of source `i` (UNKNOWN for an empty slot). Out of line, as [`whole`] is.
#[inline(never)]
fn state(srcs: &[Source; GGML_MAX_SRC], i: usize) -> SplitState {
    srcs[i].map_or(whole(GGML_BACKEND_SPLIT_AXIS_UNKNOWN, 1), |(_, s)| s)
}

/// Ok, or the reason `what` why the op cannot be split so.
fn require(ok: bool, what: &'static str) -> Result<(), InferError> {
    if ok {
        Ok(())
    } else {
        Err(what.into())
    }
}

/// Ops that compute each element (or each row) from the same place of their sources: each device
/// computes its part, as its sources are split.
fn element_wise(node: &Shape, srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Option<Result<SplitState, InferError>> {
    Some(match node.op {
        op::NONE => Ok(whole(GGML_BACKEND_SPLIT_AXIS_MIRRORED, 1)),
        op::ADD | op::ADD_ID | op::SUB | op::MUL | op::DIV => bin_bcast(srcs, n_devs),
        op::SQR..=op::COS
        | op::SILU_BACK
        | op::SCALE
        | op::CLAMP
        | op::LEAKY_RELU
        | op::FILL
        | op::UNARY
        | op::OPT_STEP_ADAMW
        | op::OPT_STEP_SGD => generic(srcs, n_devs, false),
        // Each device would repeat its own slice, not the tensor: refused along the split axis
        // (the reference computes a wrong result there).
        op::REPEAT | op::REPEAT_BACK => (|| {
            let (src, s0) = srcs[0].ok_or("a repeat without a source")?;
            require(
                !is_dim(s0.axis) || src.ne[s0.axis as usize] == node.ne[s0.axis as usize],
                "a repeat along the split axis",
            )?;
            generic(srcs, n_devs, false)
        })(),
        // Normalised along axis 0: split there, each device would normalise its part alone (the
        // reference does, and its rows sum to the device count).
        op::SOFT_MAX | op::SOFT_MAX_BACK => {
            require(state(srcs, 0).axis != GGML_BACKEND_SPLIT_AXIS_0, "a softmax over rows split along axis 0")
                .and_then(|()| generic(srcs, n_devs, false))
        }
        // With one source, GLU gates each row's first half with its second: a row split along
        // axis 0 would pair the wrong halves.
        op::GLU => require(
            srcs[1].is_some() || state(srcs, 0).axis != GGML_BACKEND_SPLIT_AXIS_0,
            "a GLU of rows split along axis 0",
        )
        .and_then(|()| generic(srcs, n_devs, false)),
        _ => return None,
    })
}

/// Ops whose every element may depend on any of their sources': their sources must not be split
/// along a dimension (all alike, MIRRORED or PARTIAL).
fn on_whole_sources(
    node: &Shape,
    srcs: &[Source; GGML_MAX_SRC],
    n_devs: usize,
) -> Option<Result<SplitState, InferError>> {
    match node.op {
        op::DUP
        | op::ADD1
        | op::ACC
        | op::SUM
        | op::OUT_PROD
        | op::SET
        | op::GET_ROWS_BACK
        | op::DIAG..=op::DIAG_MASK_ZERO
        | op::CONV_TRANSPOSE_1D..=op::IM2COL_3D
        | op::CONV_2D..=op::UPSCALE
        | op::PAD_REFLECT_1D..=op::TIMESTEP_EMBEDDING
        | op::TRI
        | op::FLASH_ATTN_BACK
        | op::SSM_SCAN..=op::SOLVE_TRI
        | op::MAP_CUSTOM1..=op::CUSTOM => Some(generic(srcs, n_devs, true)),
        #[cfg(op_dsv4_hc)]
        op::DSV4_HC_COMB..=op::DSV4_HC_POST => Some(generic(srcs, n_devs, true)),
        _ => None,
    }
}

/// Ops over each row (axis 0) of their first source: its split, but never along the rows.
fn row_wise(node: &Shape, srcs: &[Source; GGML_MAX_SRC]) -> Option<Result<SplitState, InferError>> {
    match node.op {
        op::SUM_ROWS..=op::COUNT_EQUAL
        | op::NORM..=op::L2_NORM
        | op::ARGSORT
        | op::TOP_K
        | op::CROSS_ENTROPY_LOSS
        | op::CROSS_ENTROPY_LOSS_BACK => Some(
            require(
                state(srcs, 0).axis != GGML_BACKEND_SPLIT_AXIS_0,
                "a row-wise op cannot take rows split along axis 0",
            )
            .map(|()| state(srcs, 0)),
        ),
        _ => None,
    }
}

/// Ops that combine two sources along an axis: concatenation and the matrix products.
fn combining(
    node: &Shape,
    srcs: &[Source; GGML_MAX_SRC],
    n_devs: usize,
    assume_sync: bool,
) -> Option<Result<SplitState, InferError>> {
    match node.op {
        op::CONCAT => Some(concat(node, srcs, n_devs)),
        op::MUL_MAT | op::MUL_MAT_ID => Some(mul_mat(state(srcs, 0), state(srcs, 1), n_devs, assume_sync)),
        _ => None,
    }
}

/// Ops that lay their source's elements out anew: copies, reshapes, views, permutations.
fn layout(node: &Shape, srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Option<Result<SplitState, InferError>> {
    let s0 = state(srcs, 0);
    Some(match node.op {
        op::CPY if is_dim(s0.axis) => reshape(node, srcs, n_devs),
        op::CPY => generic(srcs, n_devs, false),
        op::CONT | op::RESHAPE => reshape(node, srcs, n_devs),
        op::VIEW => view(node, srcs, n_devs),
        op::PERMUTE => match s0.axis {
            axis if is_dim(axis) => {
                require(s0.n_segments == 1 || s0.nr[0] == 1, "a permute of a segmented and repeated split")
                    .map(|()| whole(node.op_params[axis as usize], s0.nr[0]))
            }
            _ => whole_or_abort(s0),
        },
        op::TRANSPOSE => match s0.axis {
            axis @ (GGML_BACKEND_SPLIT_AXIS_0 | GGML_BACKEND_SPLIT_AXIS_1) => {
                require(s0.n_segments == 1 || s0.nr[0] == 1, "a transpose of a segmented and repeated split")
                    .map(|()| whole(axis ^ 1, s0.nr[0]))
            }
            GGML_BACKEND_SPLIT_AXIS_2 | GGML_BACKEND_SPLIT_AXIS_3 => Ok(s0),
            _ => whole_or_abort(s0),
        },
        _ => return None,
    })
}

/// Ops that read or write rows picked by indices.
fn rows(node: &Shape, srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Option<Result<SplitState, InferError>> {
    use GGML_BACKEND_SPLIT_AXIS_MIRRORED as MIRRORED;
    let (s0, s1) = (state(srcs, 0), state(srcs, 1));
    Some(match node.op {
        op::GET_ROWS if s0.axis == GGML_BACKEND_SPLIT_AXIS_0 && s1.axis == MIRRORED => Ok(s0),
        op::GET_ROWS => generic(srcs, n_devs, true),
        op::SET_ROWS => (|| {
            require(s0.axis != GGML_BACKEND_SPLIT_AXIS_1, "set_rows of values split along axis 1")?;
            require(s1.axis == MIRRORED, "set_rows indices must be MIRRORED")?;
            require(
                states_equal(&s0, &state(srcs, 2), n_devs),
                "set_rows destination and values are split differently",
            )?;
            Ok(s0)
        })(),
        _ => return None,
    })
}

/// Ops with a rule of their own: rotary embedding, padding, attention and the recurrent ops.
fn with_a_rule_of_their_own(
    node: &Shape,
    srcs: &[Source; GGML_MAX_SRC],
    n_devs: usize,
) -> Option<Result<SplitState, InferError>> {
    use GGML_BACKEND_SPLIT_AXIS_MIRRORED as MIRRORED;
    let state = |i: usize| state(srcs, i);
    Some(match node.op {
        op::ROPE | op::ROPE_BACK => {
            require(state(1).axis == MIRRORED, "rope positions must be MIRRORED").map(|()| state(0))
        }
        op::PAD => {
            let s0 = state(0);
            let axis = s0.axis as usize;
            require(
                !is_dim(s0.axis) || (node.op_params[2 * axis] == 0 && node.op_params[2 * axis + 1] == 0),
                "padding along the split axis",
            )
            .map(|()| s0)
        }
        op::FLASH_ATTN_EXT => flash_attn_ext(srcs),
        op::SSM_CONV => match (state(0).axis, state(1).axis) {
            (GGML_BACKEND_SPLIT_AXIS_0, GGML_BACKEND_SPLIT_AXIS_0) => Ok(whole(GGML_BACKEND_SPLIT_AXIS_1, 1)),
            (GGML_BACKEND_SPLIT_AXIS_1, GGML_BACKEND_SPLIT_AXIS_1) => Ok(whole(GGML_BACKEND_SPLIT_AXIS_0, 1)),
            _ => generic(srcs, n_devs, false),
        },
        op::GATED_DELTA_NET if (0..6).all(|i| state(i).axis == MIRRORED) => Ok(state(0)),
        op::GATED_DELTA_NET => (|| {
            let inputs_by_rows = (0..5).all(|i| state(i).axis == GGML_BACKEND_SPLIT_AXIS_1);
            require(inputs_by_rows, "gated_delta_net inputs must be split along axis 1")?;
            require((0..3).contains(&state(5).axis), "gated_delta_net state must be split along axis 0, 1 or 2")?;
            Ok(whole(GGML_BACKEND_SPLIT_AXIS_0, 1))
        })(),
        #[cfg(op_lightning_indexer)]
        op::LIGHTNING_INDEXER => {
            require((0..4).all(|i| state(i).axis == MIRRORED), "lightning_indexer inputs must be MIRRORED")
                .map(|()| whole(MIRRORED, 1))
        }
        _ => return None,
    })
}

fn concat(node: &Shape, srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Result<SplitState, InferError> {
    let concat_axis = node.op_params[0];
    if let (Some((_, s0)), Some((_, s1))) = (srcs[0], srcs[1]) {
        for (whole_src, split_src) in [(s0, s1), (s1, s0)] {
            if whole_src.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED && is_dim(split_src.axis) {
                if concat_axis == split_src.axis {
                    return Err("a concatenation along the split axis".into());
                }
                return Ok(split_src);
            }
        }
        if s0.axis == s1.axis && s0.axis != concat_axis {
            return Ok(s0);
        }
    }
    generic(srcs, n_devs, true)
}

/// Attention heads split along axis 2 of the query give rows of the result (axis 1).
fn flash_attn_ext(srcs: &[Source; GGML_MAX_SRC]) -> Result<SplitState, InferError> {
    use GGML_BACKEND_SPLIT_AXIS_MIRRORED as MIRRORED;
    let axis = |i: usize| srcs[i].map(|(_, s)| s.axis);
    let absent_or = |i: usize, a: i32| axis(i).is_none_or(|x| x == a);
    if !absent_or(3, MIRRORED) {
        return Err("the flash attention mask must be MIRRORED".into());
    }
    if axis(0) == Some(MIRRORED) {
        if axis(1) != Some(MIRRORED) || axis(2) != Some(MIRRORED) || !absent_or(4, MIRRORED) {
            return Err("a MIRRORED query needs MIRRORED keys, values and sinks".into());
        }
        return Ok(whole(MIRRORED, 1));
    }
    let heads = Some(GGML_BACKEND_SPLIT_AXIS_2);
    let kv_split = axis(1) == heads && axis(2) == heads;
    let kv_mirrored = axis(1) == Some(MIRRORED) && axis(2) == Some(MIRRORED);
    if axis(0) != heads || !(kv_split || kv_mirrored) || !absent_or(4, GGML_BACKEND_SPLIT_AXIS_0) {
        return Err("flash attention needs the query split by heads (axis 2), keys and values alike or MIRRORED".into());
    }
    Ok(whole(GGML_BACKEND_SPLIT_AXIS_1, 1))
}

fn whole_or_abort(state: SplitState) -> Result<SplitState, InferError> {
    match state.axis {
        GGML_BACKEND_SPLIT_AXIS_MIRRORED | GGML_BACKEND_SPLIT_AXIS_PARTIAL => Ok(state),
        axis => Err(InferError::with("unexpected source split axis", &[axis as i64])),
    }
}

/// The state shared by all sources; `scalar_only`: a dimension split is not allowed.
fn generic(srcs: &[Source; GGML_MAX_SRC], n_devs: usize, scalar_only: bool) -> Result<SplitState, InferError> {
    let mut present = srcs.iter().flatten().map(|(_, s)| s);
    let first = *present.next().ok_or("an op without sources")?;
    if present.any(|s| !states_equal(s, &first, n_devs)) {
        return Err("sources are split differently".into());
    }
    if scalar_only && is_dim(first.axis) {
        return Err(InferError::with("this op cannot take a source split along an axis", &[first.axis as i64]));
    }
    Ok(first)
}

fn bin_bcast(srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Result<SplitState, InferError> {
    let axis_of = |i: usize| srcs[i].map_or(GGML_BACKEND_SPLIT_AXIS_UNKNOWN, |(_, s)| s.axis);
    if let (Some((_, s0)), Some((shape1, s1))) = (srcs[0], srcs[1]) {
        // src1 broadcast along src0's split axis: every device takes all of src1.
        if is_dim(s0.axis) && shape1.ne[s0.axis as usize] == 1 && s1.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED {
            return Ok(s0);
        }
        if axis_of(2) == GGML_BACKEND_SPLIT_AXIS_MIRRORED
            && (s0.axis == s1.axis
                || (s0.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED && s1.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL))
        {
            return Ok(s0);
        }
    }
    if srcs[2].is_some() && axis_of(2) != GGML_BACKEND_SPLIT_AXIS_MIRRORED {
        return Err("the third source of a broadcasting op must be MIRRORED".into());
    }
    generic(srcs, n_devs, false)
}

fn mul_mat(s0: SplitState, s1: SplitState, n_devs: usize, assume_sync: bool) -> Result<SplitState, InferError> {
    use GGML_BACKEND_SPLIT_AXIS_MIRRORED as MIRRORED;
    let result = match (s0.axis, s1.axis) {
        (MIRRORED, MIRRORED) => whole(MIRRORED, 1),
        // Rows of the weight on each device: each device computes its rows of the result.
        (GGML_BACKEND_SPLIT_AXIS_1, MIRRORED) => {
            let mut state = s0;
            state.axis = GGML_BACKEND_SPLIT_AXIS_0;
            state
        }
        (MIRRORED, GGML_BACKEND_SPLIT_AXIS_1) => s1,
        // Both split along the reduced dimension: each device holds a partial sum.
        (GGML_BACKEND_SPLIT_AXIS_0, GGML_BACKEND_SPLIT_AXIS_0) if states_equal(&s0, &s1, n_devs) => {
            whole(if assume_sync { MIRRORED } else { GGML_BACKEND_SPLIT_AXIS_PARTIAL }, 1)
        }
        (a, b) if a == b && (2..4).contains(&a) && states_equal(&s0, &s1, n_devs) => s0,
        (a, MIRRORED) if (2..4).contains(&a) => s0,
        (a, b) => {
            return Err(InferError::with(
                "unsupported mul_mat split states (src0 axis, src1 axis)",
                &[a as i64, b as i64],
            ))
        }
    };
    Ok(result)
}

fn reshape(node: &Shape, srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Result<SplitState, InferError> {
    let (src, state) = srcs[0].ok_or("a reshape without a source")?;
    if !is_dim(state.axis) {
        return whole_or_abort(state);
    }
    let axis = state.axis as usize;
    let mut base_in: i64 = src.ne[..=axis].iter().product();
    if state.n_segments == 1 {
        base_in /= i64::from(state.nr[0].max(1));
        if state.axis == src.n_dims - 1 && state.nr[0] == 1 {
            return Ok(whole(node.n_dims - 1, 1));
        }
        if axis == 0 && node.ne[0] == src.ne[0] && node.ne[1] == 1 && state.nr[0] == 1 {
            let complete_rows = state.segment(n_devs, 0).iter().all(|&n| n == 0 || n == src.ne[0]);
            if complete_rows {
                return Ok(whole(GGML_BACKEND_SPLIT_AXIS_1, 1));
            }
        }
    }
    let mut base_out = 1i64;
    for dim in 0..GGML_MAX_DIMS {
        base_out *= node.ne[dim];
        if base_out.checked_rem(base_in) == Some(0) {
            return Ok(whole(dim as i32, (base_out / base_in) as u32));
        }
        if base_out > base_in {
            if state.n_segments != 1 || state.nr[0] != 1 {
                return Err("a reshape that splits a segmented or repeated axis".into());
            }
            return Ok(whole(dim as i32, 1));
        }
    }
    Err("shape mismatch in a reshape".into())
}

/// A reshape of a tensor split in several segments (a RESHAPE, a CONT, a CPY, or a VIEW of
/// the whole contiguous tensor): None for any other node. The segments carry over to the axis
/// of the result that holds the source's split axis, each device's part of each segment scaled
/// from the source's rows to the result's; when that axis holds the split axis several times
/// (the dimensions above it folded in), the segments are listed once per time. The reference
/// merges the segments into one run per device, which a direct read then interleaves. Refused
/// where a device's part does not fall on whole rows of the result, or more than 16 segments
/// would be needed.
fn reshape_of_segments(
    node: &Shape,
    srcs: &[Source; GGML_MAX_SRC],
    n_devs: usize,
) -> Result<Option<SplitState>, InferError> {
    let reshapes = match node.op {
        op::RESHAPE | op::CONT | op::CPY => true,
        op::VIEW => node.contiguous && srcs[0].is_some_and(|(src, _)| src.contiguous),
        _ => false,
    };
    let Some((src, state)) = srcs[0].filter(|(_, s)| reshapes && is_dim(s.axis) && s.n_segments > 1) else {
        return Ok(None);
    };
    let axis = state.axis as usize;
    let n_segs = segments(&state);
    // Elements below the split axis, and in one step of the axis above it.
    let inner_in: i64 = src.ne[..axis].iter().product();
    let step_in = inner_in * src.ne[axis];
    let mut inner_out = 1i64;
    for dim in 0..GGML_MAX_DIMS {
        let outer = inner_out * node.ne[dim];
        if outer.checked_rem(step_in) != Some(0) {
            inner_out = outer;
            continue;
        }
        let parts = &state.ne[..n_segs * n_devs];
        if inner_out == 0 || parts.iter().any(|&n| (n * inner_in).checked_rem(inner_out) != Some(0)) {
            return Err("a reshape that cuts through a device's part of a segmented split".into());
        }
        let times = (outer / step_in) as usize;
        if times * n_segs > 16 {
            return Err(InferError::with(
                "a reshape that repeats a split over more than 16 segments (segments, times)",
                &[n_segs as i64, times as i64],
            ));
        }
        let mut result = whole(dim as i32, 1);
        result.n_segments = (times * n_segs) as u32;
        for k in 0..times * n_segs {
            let s = k % n_segs;
            result.nr[k] = state.repeats(s);
            for (out, &part) in result.segment_mut(n_devs, k).iter_mut().zip(state.segment(n_devs, s)) {
                *out = part * inner_in / inner_out;
            }
        }
        // Another source split along a dimension (the destination of a CPY) must lie alike.
        for (_, other) in srcs[1..].iter().flatten().filter(|(_, s)| is_dim(s.axis)) {
            if other.axis != result.axis || !same_segments(&result, other, n_devs) {
                return Err("sources are split in different segments".into());
            }
        }
        return Ok(Some(result));
    }
    Err("shape mismatch in a reshape".into())
}

fn view(node: &Shape, srcs: &[Source; GGML_MAX_SRC], n_devs: usize) -> Result<SplitState, InferError> {
    let (src, state) = srcs[0].ok_or("a view without a source")?;
    if node.contiguous && src.contiguous {
        return reshape(node, srcs, n_devs);
    }
    let same_strides = (0..GGML_MAX_DIMS).all(|d| (node.ne[d] == 1 && src.ne[d] == 1) || node.nb[d] == src.nb[d]);
    if same_strides {
        return Ok(state);
    }
    if !node.permuted && !src.permuted && is_dim(state.axis) && (state.axis as usize) < GGML_MAX_DIMS - 1 {
        let axis_stride = src.nb[state.axis as usize + 1];
        return (0..GGML_MAX_DIMS - 1)
            .find(|&d| node.nb[d + 1] == axis_stride)
            .map(|d| whole(d as i32, 1))
            .ok_or_else(|| "a view that cuts through the split axis".into());
    }
    whole_or_abort(state).map_err(|_| "view of permuted tensor not implemented".into())
}

/// Gives a dimension-split result the device shares of its first dimension-split source,
/// scaled from the source's extent along its axis to the result's, and checks that the other
/// dimension-split sources agree.
fn take_over_ratio(
    result: &mut SplitState,
    node: &Shape,
    srcs: &[Source; GGML_MAX_SRC],
    n_devs: usize,
) -> Result<(), InferError> {
    let axis = result.axis as usize;
    let mut first = true;
    for (shape, state) in srcs.iter().flatten().filter(|(_, s)| is_dim(s.axis)) {
        let src_extent = shape.ne[state.axis as usize];
        // Rows of the source's extent keep their places on the devices: its segments carry over
        // (a product's rows from a fused weight's, an element-wise op's). Collapsed into one
        // segment, as the reference does, a direct read would interleave the devices' parts.
        let same_rows = src_extent == node.ne[axis] && state.nr[0] == result.nr[0];
        if first && same_rows {
            result.ne = state.ne;
            result.nr = state.nr;
            result.n_segments = state.n_segments;
        } else if first {
            for s in 0..segments(state) {
                result.segment_mut(n_devs, s).fill(0);
            }
            let div = src_extent * i64::from(result.nr[0]);
            for (j, out) in result.segment_mut(n_devs, 0).iter_mut().enumerate() {
                let mut ne = share(state, n_devs, j) * node.ne[axis];
                if ne != 0 || src_extent != 0 {
                    ne = match (ne.checked_rem(div), ne.checked_div(div)) {
                        (Some(0), Some(scaled)) => scaled,
                        _ => {
                            return Err(InferError::with(
                                "a device's share does not scale to the result's axis (device, axis)",
                                &[j as i64, axis as i64],
                            ))
                        }
                    };
                }
                *out = ne;
            }
            // One run per device (repeated): a source's other segments do not carry over.
            result.n_segments = 1;
        } else if same_rows && (is_segmented(result) || is_segmented(state)) {
            if !same_segments(result, state, n_devs) {
                return Err("sources are split in different segments".into());
            }
        } else {
            if result.n_segments != 1 {
                return Err("a segmented result with several split sources".into());
            }
            for j in 0..n_devs {
                if result.ne[j] * i64::from(result.nr[0]) * src_extent != share(state, n_devs, j) * node.ne[axis] {
                    return Err("sources are split in different ratios".into());
                }
            }
        }
        first = false;
    }
    if first {
        return Err("a split result without a split source".into());
    }
    Ok(())
}
