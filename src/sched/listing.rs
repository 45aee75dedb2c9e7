//! The debug listing of `GGML_SCHED_DEBUG` (1: splits and their inputs, 2: also every node),
//! in the reference's format.

use super::Scheduler;
use crate::base::fallible::FallibleText;
use crate::base::report::log_debug;
use crate::base::text::Lossy;
use crate::handle::{Graph, Tensor};
use core::fmt::{self, Write as _};

impl Scheduler {
    /// The debug listing of GGML_SCHED_DEBUG (1: splits and their inputs, 2: also every node).
    /// Lines are written into one string that grows only as far as the heap lets it (a
    /// listing's text is not worth failing over: what does not fit is left out). Out of line: the split that calls it runs for
    /// every token, the listing only when asked for.
    #[cold]
    #[inline(never)]
    pub(super) fn print_assignments(&self, graph: Graph) {
        let mut next_split = 0;
        let mut line = FallibleText::default();
        for (i, &node) in graph.nodes().iter().enumerate() {
            if let Some(split) = self.planning.plan.splits.get(next_split).filter(|s| s.i_start == i) {
                line.0.clear();
                let _ = write!(
                    line,
                    "\n## SPLIT #{next_split}: {} # {} inputs",
                    self.backends.name(split.backend),
                    split.inputs.len()
                );
                for (k, &input) in self.planning.plan.split_inputs[split.inputs.clone()].iter().enumerate() {
                    let t = self.reading.tensors[input];
                    let _ =
                        write!(line, "{}[{} ({:>5.5})] ", if k == 0 { ": " } else { "" }, t.name(), Size(t.nbytes()));
                }
                log_debug!("{}\n", line.0);
                next_split += 1;
            }
            if node.is_view_op() || self.debug < 2 {
                continue;
            }
            let op = if cfg!(sched_debug_op_desc) { node.op_desc() } else { node.op_name() };
            line.0.clear();
            let _ = write!(line, "node #{i:3} ({op:>10.10}):");
            self.write_tensor_column(&mut line, node);
            let _ = write!(line, " use={}", graph.use_count(node));
            // From 0.6 the line shows whether the node is computed; 0.7 names unary ops by their
            // function.
            #[cfg(sched_debug_compute_flag)]
            let _ = write!(line, ",c={}", i32::from(node.flags() & crate::abi::GGML_TENSOR_FLAG_COMPUTE != 0));
            let _ = line.write_str(":");
            for &src in node.srcs().iter().flatten() {
                self.write_tensor_column(&mut line, src);
            }
            log_debug!("{}\n", line.0);
        }
    }

    /// A tensor's name, size and backend, as the listing shows a node and each of its sources.
    fn write_tensor_column(&self, line: &mut FallibleText, tensor: Tensor) {
        let table = &self.reading.table;
        let backend = match table.lookup(tensor.addr()).map(|tid| table.backend[tid]) {
            Some(b) if b >= 0 => self.backends.name(b as usize),
            _ => Lossy(b"NULL"),
        };
        let _ =
            write!(line, " {:>20.20} ({:>5.5}) [{:>5.5} {:>8.8}]", tensor.name(), Size(tensor.nbytes()), backend, "");
    }
}

/// A size as the listing shows it: whole MiB from 1 MiB, else whole KiB.
struct Size(usize);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mut amount, unit) = if self.0 >= 1024 * 1024 { (self.0 >> 20, b'M') } else { (self.0 >> 10, b'K') };
        // The digits and the unit, right to left, padded and cut as one text (the reference's
        // "%5.5s").
        let mut text = [0u8; 21];
        let mut start = text.len() - 1;
        text[start] = unit;
        loop {
            start -= 1;
            text[start] = b'0' + (amount % 10) as u8;
            amount /= 10;
            if amount == 0 {
                break;
            }
        }
        f.pad(core::str::from_utf8(&text[start..]).unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::Size;

    #[test]
    fn a_size_is_shown_in_whole_mib_from_one_mib_else_in_whole_kib() {
        assert_eq!(alloc::format!("{}", Size(0)), "0K");
        assert_eq!(alloc::format!("{}", Size(1023 * 1024 + 1023)), "1023K");
        assert_eq!(alloc::format!("{}", Size(1024 * 1024)), "1M");
        assert_eq!(alloc::format!("[{:>5.5}]", Size(3 << 20)), "[   3M]");
        assert_eq!(alloc::format!("[{:>5.5}]", Size(4095 << 20)), "[4095M]");
    }

    /// Only a 64-bit size is long enough to be cut.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_size_longer_than_five_characters_is_cut_as_percent_five_point_five_s_cuts_it() {
        assert_eq!(alloc::format!("{:>5.5}", Size(123_456 << 20)), "12345");
    }
}
