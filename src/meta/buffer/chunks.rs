//! How a transfer of a meta tensor's bytes maps onto its slices: plain arithmetic over the split
//! state and the strides, unit-tested (and fuzzed against a model of the bytes).

use crate::handle::Runs;
use crate::meta::split::{self, SplitState};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Runs of device `dev`'s slice: run r is at `slice_offset` plus the run's tensor start in the
/// slice, and at `data_offset` plus its data start in the caller's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub dev: usize,
    pub slice_offset: usize,
    pub data_offset: usize,
    pub runs: Runs,
}

impl Chunk {
    /// One run of `size` bytes at `slice_offset` in the slice and `data_offset` in the bytes.
    pub fn whole(dev: usize, slice_offset: usize, data_offset: usize, size: usize) -> Chunk {
        Chunk { dev, slice_offset, data_offset, runs: Runs { size, count: 1, stride_tensor: 0, stride_data: 0 } }
    }
}

/// How bytes `[offset, offset + size)` of a contiguous tensor (extents `ne`, strides `nb`,
/// block size `blck`) split along a dimension map onto its slices, whose strides are
/// `slice_nb[j]`.
pub fn chunks(
    state: &SplitState,
    ne: &[i64; 4],
    nb: &[usize; 4],
    blck: i64,
    slice_nb: &[[usize; 4]],
    offset: usize,
    size: usize,
) -> Result<Vec<Chunk>, String> {
    let n = slice_nb.len();
    let axis = state.axis as usize;
    let mut out = Vec::new();
    if split::is_segmented(state) {
        // A contiguous tensor: a "row" is one step of every dimension above the split axis (all
        // of the tensor for axis 3), and each row holds the segments in turn.
        if axis > 3 || state.nr[0] == 0 {
            return Err(format!("segmented or repeated split along axis {axis}"));
        }
        let row_stride = if axis < 3 { nb[axis + 1] } else { nb[3] * ne[3] as usize };
        let total_rows: i64 = ne[axis + 1..].iter().product();
        if row_stride == 0 || offset % row_stride != 0 || size % row_stride != 0 {
            return Err("the range is not whole rows".into());
        }
        let (row_start, rows) = (offset / row_stride, size / row_stride);
        if (row_start + rows) as i64 > total_rows {
            return Err("the range goes past the tensor".into());
        }
        let mut slice_offsets = vec![0usize; n];
        let mut data_offset = 0;
        for s in 0..state.n_segments as usize {
            for _ in 0..state.repeats(s) {
                for (j, &ne_sj) in state.segment(n, s).iter().enumerate() {
                    let bytes = if axis == 0 {
                        let (Some(0), Some(blocks)) = (ne_sj.checked_rem(blck), ne_sj.checked_div(blck)) else {
                            return Err("a share is not a whole number of blocks".into());
                        };
                        blocks as usize * nb[0]
                    } else {
                        ne_sj as usize * nb[axis]
                    };
                    // (axis 3: one row, no stride)
                    let slice_stride = if axis < 3 { slice_nb[j][axis + 1] } else { 0 };
                    // A device without a share of the segment moves nothing (its slice may be
                    // empty, in a buffer that cannot be written).
                    if bytes > 0 {
                        out.push(Chunk {
                            dev: j,
                            slice_offset: slice_offsets[j] + row_start * slice_stride,
                            data_offset,
                            runs: Runs {
                                size: bytes,
                                count: rows,
                                stride_tensor: slice_stride,
                                stride_data: row_stride,
                            },
                        });
                    }
                    data_offset += bytes;
                    slice_offsets[j] += bytes;
                }
            }
        }
        if data_offset * rows != size {
            return Err("the segments do not cover the rows".into());
        }
        return Ok(out);
    }
    if axis > 2 {
        return Err(format!("transfers of tensors split along axis {axis}"));
    }
    let full = nb[axis + 1];
    if full == 0 || offset % full != 0 || size % full != 0 {
        return Err("the range is not whole steps of the split axis".into());
    }
    let (i_start, i_stop) = (offset / full, (offset + size) / full);
    let mut data_offset = 0;
    for (j, snb) in slice_nb.iter().enumerate() {
        let part = snb[axis + 1];
        if part == 0 {
            continue;
        }
        out.push(Chunk {
            dev: j,
            slice_offset: i_start * part,
            data_offset,
            runs: Runs { size: part, count: i_stop - i_start, stride_tensor: part, stride_data: full },
        });
        data_offset += part;
    }
    if data_offset != full {
        return Err("the slices do not add up to the tensor".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(axis: i32, shares: &[i64]) -> SplitState {
        let mut state = split::whole(axis, 1);
        state.ne[..shares.len()].copy_from_slice(shares);
        state
    }

    #[test]
    fn rows_split_along_axis_1_are_one_run_per_device() {
        // 8x6 f32 split 4/2 rows: device 0 takes bytes [0, 128), device 1 [128, 192).
        let state = split(1, &[4, 2]);
        let c = chunks(&state, &[8, 6, 1, 1], &[4, 32, 192, 192], 1, &[[4, 32, 128, 128], [4, 32, 64, 64]], 0, 192)
            .unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].dev, c[0].slice_offset, c[0].data_offset, c[0].runs.size, c[0].runs.count), (0, 0, 0, 128, 1));
        assert_eq!(
            (c[1].dev, c[1].slice_offset, c[1].data_offset, c[1].runs.size, c[1].runs.count),
            (1, 0, 128, 64, 1)
        );
    }

    #[test]
    fn columns_split_along_axis_0_interleave_row_by_row() {
        // 6x2 f32 split 4/2 columns: each row gives 16 bytes to device 0 and 8 to device 1.
        let state = split(0, &[4, 2]);
        let c = chunks(&state, &[6, 2, 1, 1], &[4, 24, 48, 48], 1, &[[4, 16, 32, 32], [4, 8, 16, 16]], 0, 48).unwrap();
        let runs = |size, stride_tensor| Runs { size, count: 2, stride_tensor, stride_data: 24 };
        assert_eq!(c[0], Chunk { dev: 0, slice_offset: 0, data_offset: 0, runs: runs(16, 16) });
        assert_eq!(c[1], Chunk { dev: 1, slice_offset: 0, data_offset: 16, runs: runs(8, 8) });
    }

    #[test]
    fn segments_repeat_their_per_device_parts() {
        // A fused 2-segment split along axis 1 of an 2x6 tensor: segment 0 (1+1 rows) once,
        // segment 1 (1+1 rows) twice; devices get rows in the order d0 d1 d0 d1 d0 d1.
        let mut state = split(1, &[1, 1, 1, 1]);
        state.n_segments = 2;
        state.nr[1] = 2;
        let c = chunks(&state, &[2, 6, 1, 1], &[4, 8, 48, 48], 1, &[[4, 8, 24, 24], [4, 8, 24, 24]], 0, 48).unwrap();
        let layout: Vec<_> = c.iter().map(|c| (c.dev, c.slice_offset, c.data_offset)).collect();
        assert_eq!(layout, [(0, 0, 0), (1, 0, 8), (0, 8, 16), (1, 8, 24), (0, 16, 32), (1, 16, 40)]);
    }

    #[test]
    fn segments_along_an_outer_axis_move_as_blocks_of_every_row() {
        // [2, 2, 6, 2] f32 in 3 segments along axis 2 (1 + 1 each): per step of axis 3, device
        // 0 and 1 take 16 bytes in turn, three times; each slice holds 3 x 16 bytes per step.
        let mut state = split(2, &[1, 1, 1, 1, 1, 1]);
        state.n_segments = 3;
        state.nr[..3].fill(1);
        let slice_nb = [[4, 8, 16, 48]; 2];
        let c = chunks(&state, &[2, 2, 6, 2], &[4, 8, 16, 96], 1, &slice_nb, 0, 192).unwrap();
        let layout: Vec<_> = c.iter().map(|c| (c.dev, c.slice_offset, c.data_offset, c.runs.count)).collect();
        assert_eq!(
            layout,
            [(0, 0, 0, 2), (1, 0, 16, 2), (0, 16, 32, 2), (1, 16, 48, 2), (0, 32, 64, 2), (1, 32, 80, 2)]
        );
        assert!(c.iter().all(|c| c.runs.size == 16 && c.runs.stride_tensor == 48 && c.runs.stride_data == 96));
        // the second step of axis 3 alone
        let second = chunks(&state, &[2, 2, 6, 2], &[4, 8, 16, 96], 1, &slice_nb, 96, 96).unwrap();
        assert_eq!((second[1].slice_offset, second[1].data_offset, second[1].runs.count), (48, 16, 1));
        // along axis 3 the whole tensor is one row
        let mut outer = split(3, &[1, 1, 1, 1]);
        outer.n_segments = 2;
        outer.nr[..2].fill(1);
        let c = chunks(&outer, &[2, 1, 1, 4], &[4, 8, 8, 8], 1, &[[4, 8, 8, 8]; 2], 0, 32).unwrap();
        let layout: Vec<_> = c.iter().map(|c| (c.dev, c.slice_offset, c.data_offset, c.runs.size)).collect();
        assert_eq!(layout, [(0, 0, 0, 8), (1, 0, 8, 8), (0, 8, 16, 8), (1, 8, 24, 8)]);
    }

    #[test]
    fn a_device_without_a_share_of_a_segment_gets_no_chunk() {
        // 3x3 f32 in 2 segments along axis 1: segment 0 all 3 rows on device 0, segment 1 empty;
        // device 1's slice is empty (its buffer may not be writable): nothing goes to it.
        let mut state = split(1, &[3, 0, 0, 0]);
        state.n_segments = 2;
        state.nr[1] = 1;
        let c = chunks(&state, &[3, 3, 1, 1], &[4, 12, 36, 36], 1, &[[4, 12, 36, 36], [4, 12, 0, 0]], 0, 36).unwrap();
        assert_eq!(c.iter().map(|c| (c.dev, c.runs.size)).collect::<Vec<_>>(), [(0, 36)]);
    }

    #[test]
    fn ranges_that_cut_a_step_of_the_split_axis_are_refused() {
        let state = split(1, &[4, 2]);
        assert!(chunks(&state, &[8, 6, 1, 1], &[4, 32, 192, 192], 1, &[[4, 32, 128, 128], [4, 32, 64, 64]], 0, 100)
            .is_err());
        assert!(chunks(&split(3, &[1, 1]), &[1, 1, 1, 2], &[4, 4, 4, 4], 1, &[[4, 4, 4, 4]; 2], 0, 8).is_err());
    }
}
